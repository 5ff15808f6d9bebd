import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import { InUse, type NewJob, type NewTask, type Project, type Store, type TaskEvent } from '../../src/store/store.js';
import { BACKENDS, type OpenBackend } from './backends.js';

/**
 * Races between two stores on one database: two connections (SQLite) or two pools (PostgreSQL), as
 * two processes or API replicas have. Each test starts many operations through both at once and
 * checks what must hold however they interleave.
 */
for (const backend of BACKENDS) {
  describe(`store races: ${backend.name}`, { skip: backend.skip }, () => {
    let opened: OpenBackend;
    let a: Store;
    let b: Store;
    let project: Project;

    before(async () => {
      opened = await backend.open();
      a = opened.store;
      b = await opened.another();
      const account = await a.createAccount('races');
      project = await a.createProject(account.id, 'default');
    });
    after(async () => opened.cleanup());

    const taskInput = (name: string, over: Partial<NewTask> = {}): NewTask => ({
      id: newId(),
      projectId: project.id,
      name,
      workflowId: newId(),
      workflowName: 'wf',
      workflowVersion: 1,
      userName: 'u1',
      status: 'queued',
      reason: 'activated',
      parameters: {},
      plan: {},
      scheduleAt: null,
      stopRequested: false,
      createdAt: 1_700_000_000,
      ...over,
    });

    /** Every event continues from the status the previous one reached. */
    const assertChain = (events: TaskEvent[], jobId: string | null, first: string) => {
      const mine = events.filter((e) => e.jobId === jobId);
      let status = first;
      for (const [i, event] of mine.entries()) {
        assert.equal(event.from, status, `event ${i} of ${jobId ?? 'the task'} goes from ${event.from}, but the status was ${status}`);
        status = event.to;
      }
      return { count: mine.length, last: status };
    };

    it('durable writes made at once through both stores all settle, and each store reads every one', async () => {
      // On SQLite a durable commit's answer waits for a WAL sync that the commits made meanwhile share (sqlite.ts):
      // none may be left waiting, and none may be answered before the others' connections can read it.
      const names = Array.from({ length: 40 }, (_, i) => `durable-${i}`);
      const created = await Promise.all(names.map((name, i) => (i % 2 === 0 ? a : b).createAccount(name)));
      assert.deepEqual(
        created.map((account) => account.name),
        names,
      );
      for (const store of [a, b]) {
        const listed = new Set((await store.listAccounts()).map((account) => account.name));
        for (const name of names) assert.ok(listed.has(name), `${name} is read back`);
      }
    });

    it('lets exactly one of two racing compare-and-sets of a task win, with one event', { timeout: 60_000 }, async () => {
      const tasks = Array.from({ length: 30 }, (_, i) => taskInput(`cas-${i}`));
      await Promise.all(tasks.map((task) => a.createTask(task, [])));
      const results = await Promise.all(
        tasks.map(async (task, i) => {
          // Alternate who starts first; both expect 'queued'.
          const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
          const [running, failed] = await Promise.all([
            first.updateTask(task.id, { status: 'running', reason: 'started' }, ['queued']),
            second
              .applyChanges({ relaxed: i % 3 === 0, tasks: [{ id: task.id, patch: { status: 'failed', reason: 'failed' }, expect: ['queued'] }] })
              .then(async () => (await b.getTask(task.id))!.status === 'failed'),
          ]);
          return { task, running, failed };
        }),
      );
      for (const { task, running, failed } of results) {
        assert.notEqual(running, failed, `exactly one change wins (task ${task.name})`);
        const events = await b.taskEvents(task.id);
        assert.deepEqual(
          events.map((e) => [e.from, e.to]),
          [
            [null, 'queued'],
            ['queued', running ? 'running' : 'failed'],
          ],
        );
        assert.equal((await a.getTask(task.id))!.status, running ? 'running' : 'failed');
      }
    });

    it('keeps the event log of a job a chain when two stores flip its status concurrently', { timeout: 60_000 }, async () => {
      const input = taskInput('flip', { status: 'running' });
      const jobs = ['x', 'y', 'z'].map((node): NewJob => ({
        id: `${input.id}.${node}`,
        taskId: input.id,
        nodeId: node,
        name: 'tool',
        status: 'queued',
        reason: '',
        command: '',
        spec: {},
        attempt: 0,
        cpu: 1,
        memMb: 1,
      }));
      await a.createTask(input, jobs);
      // Through one store, queued -> running; through the other, running -> queued: each succeeds
      // only from the status the other left, so successes alternate and every event's `from` is
      // the status it replaced.
      let wins = 0;
      const flips = jobs.flatMap((job) =>
        Array.from({ length: 40 }, (_, i) => {
          const forward = i % 2 === 0;
          const store = forward ? a : b;
          const op: Promise<boolean | undefined> =
            i % 4 < 2
              ? store.updateJob(job.id, forward ? { status: 'running' } : { status: 'queued' }, [forward ? 'queued' : 'running'])
              : store
                  .applyChanges({
                    jobs: [{ id: job.id, taskId: input.id, patch: { status: forward ? 'running' : 'queued' }, expect: [forward ? 'queued' : 'running'] }],
                  })
                  .then(() => undefined);
          return op.then((won) => {
            if (won) wins++;
          });
        }),
      );
      await Promise.all(flips);
      const events = await a.taskEvents(input.id);
      let total = 0;
      for (const job of jobs) {
        const { count, last } = assertChain(events, job.id, 'queued');
        assert.equal((await b.getJob(job.id))!.status, last);
        total += count;
      }
      // updateJob's answers count its wins; applyChanges's wins only show as events.
      assert.ok(total >= wins, `${total} events for at least ${wins} successful updates`);
      assert.ok(total > 0);
    });

    it(
      'allocates unique, gap-free versions to 200 creates of one name through two stores at once (more than retrying alone survives)',
      { timeout: 60_000 },
      async () => {
        for (const kind of ['tool', 'workflow'] as const) {
          const base = { projectId: project.id, name: `storm-${kind}`, description: '', visibility: 'private' as const };
          const created = await Promise.all(
            Array.from({ length: 200 }, (_, i) => {
              const store = i % 2 === 0 ? a : b;
              return kind === 'tool' ? store.createTool(base) : store.createWorkflow(base);
            }),
          );
          const versions = created.map((c) => c.version).sort((x, y) => x - y);
          assert.deepEqual(
            versions,
            Array.from({ length: 200 }, (_, i) => i + 1),
            kind,
          );
          const stored = kind === 'tool' ? await b.getToolVersions(project.id, base.name) : await b.getWorkflowVersions(project.id, base.name);
          assert.deepEqual(
            stored.map((s) => s.version),
            versions,
          );
        }
      },
    );

    it('never changes a tool version after a concurrent PutWorkflow pinned it', { timeout: 60_000 }, async () => {
      const rounds = 15;
      await Promise.all(
        Array.from({ length: rounds }, async (_, round) => {
          const tool = await a.createTool({ projectId: project.id, name: `pinrace-tool-${round}`, description: '', visibility: 'private' });
          await a.putTool(tool.id, { configs: { v: 0 }, category: '', status: 'checked' });
          const workflow = await b.createWorkflow({ projectId: project.id, name: `pinrace-wf-${round}`, description: '', visibility: 'private' });
          const pinner = `races/default/pinrace-wf-${round}:1`;
          let seenAfterPin: unknown;
          const outcomes = await Promise.all([
            // The pin, then what the pinned version holds right after it is committed.
            b.putWorkflow(workflow.id, { configs: { nodelist: [] }, status: 'checked', toolIds: [tool.id] }).then(async () => {
              seenAfterPin = (await b.transaction((s) => s.getToolById(tool.id)))!.configs;
              return 'pinned';
            }),
            ...Array.from({ length: 6 }, (_, i) =>
              (i % 2 === 0 ? a : b).putTool(tool.id, { configs: { v: i + 1 }, category: '', status: 'checked' }, { refuseIfPinned: true }).then(
                () => 'put',
                (error: unknown) => {
                  assert.ok(error instanceof InUse, String(error));
                  assert.deepEqual(error.by, [pinner]);
                  return 'refused';
                },
              ),
            ),
          ]);
          assert.equal(outcomes[0], 'pinned');
          // Whatever was put before the pin, nothing was put after it.
          const final = (await a.transaction((s) => s.getToolById(tool.id)))!.configs;
          assert.deepEqual(final, seenAfterPin, `round ${round}: ${outcomes.join(' ')}`);
          assert.deepEqual(await a.workflowsUsingTool(tool.id), [pinner]);
          // And from now on every put is refused, through either store.
          await assert.rejects(b.putTool(tool.id, { configs: { v: 99 }, category: '', status: 'checked' }, { refuseIfPinned: true }), InUse);
        }),
      );
    });
  });
}
