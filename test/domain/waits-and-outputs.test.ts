/**
 * The rules behind "why is my job waiting" and "where are my results" (issue 22, items 11 and 12) as tables: the
 * waits' texts, what a job waits for by its state and its task's, an output's state from its provenance and the item
 * in the store; and the engine's wait notes, which write a changed wait at once but a job's later changes at most
 * once per interval.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outputStateOf, producerOf, type OutputState } from '../../src/domain/tasks/outputs.js';
import { formatMemory, imagePullWait, resourceWait, slurmWait, waitingFor, type WaitContext } from '../../src/domain/tasks/waiting.js';
import type { JobStatus } from '../../src/domain/tasks/states.js';
import { WaitNotes } from '../../src/engine/wait-notes.js';
import type { LiveJob, LiveTask } from '../../src/engine/live-task.js';

describe('what a job waits for', () => {
  it('says how much of what is needed and free', () => {
    const cases: Array<[{ cpu: number; memMb: number }, { cpus: number; memMb: number }, string]> = [
      [{ cpu: 2, memMb: 100 }, { cpus: 1, memMb: 4096 }, 'waiting for 2 CPUs (1 free)'],
      [{ cpu: 1, memMb: 100 }, { cpus: 0, memMb: 4096 }, 'waiting for 1 CPU (0 free)'],
      [{ cpu: 1, memMb: 8192 }, { cpus: 4, memMb: 2560 }, 'waiting for 8 GB of memory (2.5 GB free)'],
      [{ cpu: 4, memMb: 900 }, { cpus: 2, memMb: 512 }, 'waiting for 4 CPUs (2 free) and 900 MB of memory (512 MB free)'],
    ];
    for (const [need, free, text] of cases) assert.equal(resourceWait(need, free), text);
    assert.deepEqual([0, 1023, 1024, 1536, 10_240, -5].map(formatMemory), ['0 MB', '1023 MB', '1 GB', '1.5 GB', '10 GB', '0 MB']);
    assert.equal(imagePullWait('quay.io/biocontainers/bwa:0.7.17'), 'waiting for its image quay.io/biocontainers/bwa:0.7.17 to be pulled');
  });

  it("explains Slurm's pending reasons it knows, and shows the others as they are", () => {
    assert.equal(slurmWait('Priority'), 'waiting for Slurm to start it: Priority (jobs of higher priority are ahead of it)');
    assert.equal(slurmWait('QOSMaxCpuPerUserLimit'), 'waiting for Slurm to start it: QOSMaxCpuPerUserLimit (a limit of its quality of service)');
    assert.equal(
      slurmWait('ReqNodeNotAvail, UnavailableNodes:n1'),
      'waiting for Slurm to start it: ReqNodeNotAvail, UnavailableNodes:n1 (the nodes it may run on are not available)',
    );
    assert.equal(slurmWait('SomethingNew'), 'waiting for Slurm to start it: SomethingNew');
    assert.equal(slurmWait(''), 'waiting for Slurm to start it: None (not yet looked at by the scheduler)');
  });

  it('tells from the job and its task what it waits for', () => {
    const held: WaitContext = { taskStatus: 'running', taskHeld: true, scheduleAt: null, upstream: [] };
    const up = (...states: JobStatus[]) => states.map((status, i) => ({ nodeId: `n${i}`, status }));
    const cases: Array<[JobStatus, string, WaitContext, string | null]> = [
      ['queued', 'waiting for 2 CPUs (1 free)', held, 'waiting for 2 CPUs (1 free)'],
      ['queued', 'upstream jobs succeeded', held, 'waiting for its worker to start it'],
      ['queued', 'waiting for 2 CPUs (1 free)', { ...held, taskHeld: false }, 'waiting for a worker to take the task'],
      ['queued', 'ready', { ...held, taskStatus: 'queued', taskHeld: false }, 'waiting for a worker to take the task'],
      ['waiting', 'waiting for upstream jobs', { ...held, upstream: up('succeeded', 'running', 'queued') }, 'waiting for upstream jobs n1, n2'],
      ['waiting', 'waiting for upstream jobs', { ...held, upstream: up('running') }, 'waiting for upstream job n0'],
      ['queued', 'ready', { ...held, taskStatus: 'scheduled', scheduleAt: 1_800_000_000 }, 'waiting for the scheduled start, 2027-01-15T08:00:00.000Z'],
      ['running', 'waiting for Slurm to start it: Resources', held, 'waiting for Slurm to start it: Resources'],
      ['running', 'started', held, null],
      ['succeeded', 'waiting for 2 CPUs (1 free)', held, null],
      ['cancelled', 'the task was stopped', held, null],
    ];
    for (const [status, reason, context, expected] of cases) assert.equal(waitingFor({ status, reason }, context), expected, `${status} / ${reason}`);
  });
});

describe("a task's outputs", () => {
  const stamp = { size: 10, mtimeMs: 1_700_000_000_000.5 };
  it('tells the state of each planned item from its provenance and the item in the store', () => {
    const mine = { ...stamp, taskId: 'T' };
    const cases: Array<[Parameters<typeof outputStateOf>[0], OutputState]> = [
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'succeeded', provenance: mine, item: stamp }, 'stored'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'failed', provenance: mine, item: stamp }, 'stored'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'succeeded', provenance: mine, item: { ...stamp, size: 11 } }, 'replaced'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'succeeded', provenance: mine, item: { ...stamp, mtimeMs: stamp.mtimeMs + 1 } }, 'replaced'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'succeeded', provenance: mine, item: undefined }, 'missing'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'succeeded', provenance: { ...mine, taskId: 'U' }, item: stamp }, 'replaced'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'cancelled', provenance: { ...mine, taskId: 'U' }, item: stamp }, 'not_stored'],
      [{ taskId: 'T', taskEnded: false, saveJobStatus: 'waiting', provenance: { ...mine, taskId: 'U' }, item: stamp }, 'pending'],
      [{ taskId: 'T', taskEnded: false, saveJobStatus: 'waiting', provenance: undefined, item: undefined }, 'pending'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'cancelled', provenance: undefined, item: undefined }, 'not_stored'],
      // Stored by a version that recorded no provenance: the store step's end says it.
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'succeeded', provenance: undefined, item: stamp }, 'stored'],
      [{ taskId: 'T', taskEnded: true, saveJobStatus: 'succeeded', provenance: undefined, item: undefined }, 'missing'],
    ];
    for (const [input, state] of cases) assert.equal(outputStateOf(input), state, JSON.stringify(input));
  });

  it('finds the job that wrote a stored file: the upstream job, or the load step of an item stored as it was loaded', () => {
    const specs = new Map<string, any>([
      ['L', { kind: 'load', nodeId: 'reads', alias: '', deps: [], items: [{ account: 'a', path: '/in.fq' }] }],
      ['M', { kind: 'load', nodeId: 'other', alias: '', deps: [], items: [{ account: 'a', path: '/x.fq' }] }],
    ]);
    const specOf = (id: string) => specs.get(id);
    assert.deepEqual(producerOf({ kind: 'job', jobId: 'J', nodeId: 'align', path: 'outputs/bam/x.bam' }, [], specOf), { jobId: 'J', nodeId: 'align' });
    assert.deepEqual(producerOf({ kind: 'data', account: 'a', path: '/in.fq' }, ['M', 'L'], specOf), { jobId: 'L', nodeId: 'reads' });
    assert.equal(producerOf({ kind: 'data', account: 'a', path: '/elsewhere.fq' }, ['M', 'L'], specOf), null);
  });
});

describe("the engine's wait notes", () => {
  const live = { task: { id: 'T' } } as LiveTask;
  const job = (reason: string) => ({ job: { id: 'J', status: 'queued', reason } }) as unknown as LiveJob;

  it('write a new wait at once, an unchanged one never, and a changed one at most once per interval, then the latest', async () => {
    const written: string[] = [];
    let wakes = 0;
    const notes = new WaitNotes(
      (_live, entry, reason) => {
        entry.job.reason = reason;
        written.push(reason);
      },
      () => wakes++,
      200,
    );
    const entry = job('upstream jobs succeeded');
    notes.resources(live, entry, { cpu: 2, memMb: 100 }, { cpus: 1, memMb: 1000 });
    notes.resources(live, entry, { cpu: 2, memMb: 100 }, { cpus: 1, memMb: 1000 });
    assert.deepEqual(written, ['waiting for 2 CPUs (1 free)'], 'written once');
    notes.resources(live, entry, { cpu: 2, memMb: 100 }, { cpus: 0, memMb: 1000 });
    assert.deepEqual(written, ['waiting for 2 CPUs (1 free)'], 'a change this soon waits');
    await new Promise((resolve) => setTimeout(resolve, 260));
    assert.equal(wakes, 1, 'a pass is asked for once the interval is over');
    notes.resources(live, entry, { cpu: 2, memMb: 100 }, { cpus: 0, memMb: 1000 });
    assert.deepEqual(written, ['waiting for 2 CPUs (1 free)', 'waiting for 2 CPUs (0 free)']);
    // A job that stopped waiting (its image pulled) is written at once when it waits again.
    notes.over(live, entry);
    notes.note(live, entry, 'waiting for its image x to be pulled');
    assert.equal(written.at(-1), 'waiting for its image x to be pulled');
    // A running job that waited (pending in Slurm) gets its reason back.
    const slurm = job('waiting for Slurm to start it: Priority');
    notes.over(live, slurm, 'started');
    assert.equal(slurm.job.reason, 'started');
    notes.over(live, slurm, 'started');
    assert.equal(written.filter((w) => w === 'started').length, 1, 'only a job shown waiting');
    notes.close();
  });
});
