import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import type { JobStatus, Project, Store, TaskStatus } from '../../src/store/store.js';
import { BACKENDS } from './backends.js';

/** Store.stateCounts on every backend: what the metrics' gdflow_tasks and gdflow_jobs gauges show. */
for (const backend of BACKENDS) {
  describe(`store contract, state counts: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let project: Project;

    before(async () => {
      ({ store, cleanup } = await backend.open());
      const account = await store.createAccount('counted');
      project = await store.createProject(account.id, 'default');
    });
    after(async () => cleanup());

    async function task(status: TaskStatus, jobs: JobStatus[]): Promise<string> {
      const id = newId();
      await store.createTask(
        {
          id,
          projectId: project.id,
          name: `t${id}`,
          workflowId: newId(),
          workflowName: 'wf',
          workflowVersion: 1,
          userName: 'u',
          status,
          reason: '',
          parameters: {},
          plan: {},
          scheduleAt: null,
          stopRequested: false,
          createdAt: Date.now() / 1000,
        },
        jobs.map((s, i) => ({
          id: `${id}_${i}`,
          taskId: id,
          nodeId: `n${i}`,
          name: 'tool',
          status: s,
          reason: '',
          command: '',
          spec: {},
          attempt: 0,
          cpu: 1,
          memMb: 1,
        })),
      );
      return id;
    }

    it('counts tasks by state and the jobs of unfinished tasks by state, leaving out tasks being deleted', async () => {
      assert.deepEqual(await store.stateCounts(), { tasks: {}, jobs: {} });
      await task('running', ['running', 'queued', 'waiting']);
      await task('queued', ['queued']);
      await task('succeeded', ['succeeded', 'succeeded']);
      const deleted = await task('running', ['running']);
      await store.updateTask(deleted, { deleteRequested: true });
      assert.deepEqual(await store.stateCounts(), { tasks: { running: 1, queued: 1, succeeded: 1 }, jobs: { running: 1, queued: 2, waiting: 1 } });
    });
  });
}
