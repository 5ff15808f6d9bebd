/**
 * What a worker does when the rules refuse a transition (engine/effects.ts, TaskDriver.handle): the decision is not
 * carried out, the task ends through legal transitions with the error as its reason, its jobs running here are
 * killed without their end being recorded, its lease is given up, and the error is logged. Real SQLite store, real
 * writer, scheduler and slots; the event is a late end of a job the rules had already cancelled.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WorkerView } from '../../src/domain/tasks/rules/index.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/tools/retry-policy.js';
import { TaskDriver } from '../../src/engine/effects.js';
import { Layout } from '../../src/engine/layout.js';
import { LiveTask } from '../../src/engine/live-task.js';
import { Scheduler } from '../../src/engine/scheduler.js';
import { Slots } from '../../src/engine/slots.js';
import { StateWriter } from '../../src/engine/writer.js';
import { newId } from '../../src/ids.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';

const spec = (nodeId: string) => ({
  kind: 'tool',
  nodeId,
  alias: nodeId,
  deps: [],
  command: 'true',
  mounts: [],
  outputFiles: [],
  cpu: 1,
  memMb: 100,
  network: false,
  image: '',
});

describe('a transition the state table forbids, in a running worker', () => {
  let dir: string;
  let store: Store;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gdflow-driver-'));
    store = await openSqliteStore(join(dir, 'gdflow.db'));
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the task through legal transitions, kills its jobs here unrecorded, gives it up and logs the error', async () => {
    const account = await store.createAccount('driver');
    const project = await store.createProject(account.id, 'default');
    const id = newId();
    const jobs = [
      { id: `${id}_a`, nodeId: 'a', status: 'cancelled' as const },
      { id: `${id}_b`, nodeId: 'b', status: 'running' as const },
      { id: `${id}_c`, nodeId: 'c', status: 'queued' as const },
    ];
    const workflow = { workflowId: newId(), workflowName: 'wf', workflowVersion: 1, scheduleAt: null, stopRequested: false, createdAt: 1 };
    await store.createTask(
      { id, projectId: project.id, name: 'halted', ...workflow, userName: 'u', status: 'running', reason: '', parameters: {}, plan: {} },
      jobs.map((j) => ({ ...j, taskId: id, name: 'tool', reason: '', command: 'true', spec: spec(j.nodeId), attempt: 1, cpu: 1, memMb: 100 })),
    );
    const [claimed] = await store.claimTasks('w1', 1, 15);
    assert.equal(claimed?.id, id);

    const logs: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => {
      logs.push({ level, message, ...(fields ? { fields } : {}) });
    };
    const live = new LiveTask(claimed, await store.listJobs(id), Date.now());
    const held = new Map([[id, live]]);
    const slots = new Slots(2, 1000);
    const writer = new StateWriter(store, 'w1', log, { held: (taskId) => held.has(taskId), lost: (taskId) => held.delete(taskId) });
    const layout = new Layout(dir);
    const scheduler = new Scheduler(slots, writer, layout, {
      held: (l) => held.get(l.task.id) === l,
      deleting: () => false,
      leaseYoung: () => true,
      cacheWanted: () => false,
    });
    const settings = { retry: DEFAULT_RETRY_POLICY, memoryMb: 1000, maxRestarts: 3, cleanupIntermediates: false, adopts: false };
    const view: WorkerView = { running: slots.running, ...settings };
    const driver = new TaskDriver(view, writer, scheduler, slots, layout, log, {
      wake: () => {},
      retire: (l) => {
        writer.release(l.task.id);
        held.delete(l.task.id);
      },
      abandon: () => assert.fail('the halt is legal: the task is not abandoned'),
      removeTask: () => assert.fail('nothing is deleted'),
    });
    const b = live.byId.get(`${id}_b`)!;
    const run = slots.reserve(live, b, 1, 100);

    // A late report that job a, which the rules cancelled, succeeded: cancelled → succeeded is not in the table.
    const result = { outcome: 'succeeded' as const, exitCode: 0, reason: 'exit code 0', startedAt: 1, endedAt: 2 };
    await driver.handle(live, { kind: 'job-ended', jobId: `${id}_a`, result, killedFor: undefined, memMb: 100, at: Date.now() / 1000 });
    await writer.flush();

    const why = `engine error: job ${id}_a cannot go from cancelled to succeeded (docs/tasks.md, "States")`;
    const task = await store.getTask(id);
    assert.equal(task?.status, 'failed');
    assert.equal(task?.reason, why);
    assert.equal(task?.heldBy, null, 'its lease is given up');
    const after = new Map((await store.listJobs(id)).map((j) => [j.nodeId, j]));
    assert.equal(after.get('a')?.status, 'cancelled', 'the refused change was not written');
    assert.equal(after.get('b')?.status, 'cancelled');
    assert.equal(after.get('c')?.status, 'cancelled');
    assert.equal(after.get('c')?.reason, why);
    assert.equal(run.controller.signal.reason, 'lost', 'the job running here is killed, its end not to be recorded');
    assert.equal(held.has(id), false, 'the worker no longer holds the task');
    const logged = logs.find((l) => l.level === 'error' && l.fields?.event === 'job-ended');
    assert.equal(logged?.message, 'the task rules asked for a transition the state table forbids');
    const events = await store.taskEvents(id);
    assert.ok(!events.some((e) => e.to === 'succeeded'), 'no event of the refused transition');
  });
});
