/**
 * The task and job rules (src/domain/tasks/rules) as a table of cases: a task and its jobs as plain data, an event,
 * and the transitions and effects the rules decide. Every transition of the state table (states.ts) is made by at
 * least one case, every pair of states the table does not join is refused, and the events that would make one of
 * those throw IllegalTransition, so that the engine never writes it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cannotRun,
  changesOf,
  decide,
  IllegalTransition,
  NOTHING_RUNS_HERE,
  stopTask,
  type AddedJob,
  type AttemptResult,
  type Decision,
  type Resolution,
  type Effect,
  type JobState,
  type RuleEvent,
  type TaskState,
  type WorkerView,
} from '../../src/domain/tasks/rules/index.js';
import { checkJobTransition, checkTaskTransition } from '../../src/domain/tasks/rules/transitions.js';
import {
  JOB_STATES,
  JOB_TRANSITIONS,
  TASK_STATES,
  TASK_TRANSITIONS,
  TERMINAL_JOB_STATES,
  TERMINAL_TASK_STATES,
  unblocksDependents,
  type JobStatus,
  type TaskStatus,
} from '../../src/domain/tasks/states.js';
import { upstreamOf, type JobSpec } from '../../src/domain/tasks/job-spec.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/tools/retry-policy.js';
import type { Job, JobAttempt, JobPatch, Task } from '../../src/store/store.js';

const AT = 1_000_000;

// ---- the task and its jobs, as plain data ----------------------------------------------------------------------

interface JobRow {
  id: string;
  status: JobStatus;
  deps?: string[];
  kind?: 'tool' | 'load' | 'store' | 'step';
  /** A deferred job that expanded: the jobs it added. */
  children?: string[];
  attempt?: number;
  attempts?: JobAttempt[];
  memMb?: number;
  externalId?: string;
  reason?: string;
  /** The tool's retry policy document (snake_case, as in a tool definition). */
  retry?: Record<string, unknown>;
  /** A load step's data items. */
  items?: Array<{ account: string; path: string }>;
}

function specOf(row: JobRow): JobSpec {
  const common = { nodeId: row.id, alias: row.id, deps: row.deps ?? [] };
  if (row.kind === 'load') return { kind: 'load', ...common, items: row.items ?? [] };
  if (row.kind === 'store') return { kind: 'store', ...common, imports: [] };
  if (row.kind === 'step') {
    const resolved = row.children ? { resolved: { kind: 'expand' as const, children: row.children, gather: {} } } : {};
    return { kind: 'step', ...common, resolver: 'cwl', key: row.id, payload: {}, ...resolved };
  }
  const tool = { kind: 'tool' as const, ...common, command: 'true', mounts: [], outputFiles: [], cpu: 1, memMb: 1000, network: false, image: '' };
  return row.retry ? { ...tool, retry: row.retry } : tool;
}

function jobOf(row: JobRow): Job {
  return {
    id: row.id,
    taskId: 't',
    nodeId: row.id,
    name: `tool-${row.id}`,
    status: row.status,
    reason: row.reason ?? '',
    command: 'true',
    spec: {},
    attempt: row.attempt ?? (row.status === 'running' || row.status === 'succeeded' || row.status === 'failed' ? 1 : 0),
    exitCode: null,
    cpu: 1,
    memMb: row.memMb ?? 1000,
    externalId: row.externalId ?? null,
    imageDigest: null,
    startedAt: row.status === 'running' ? AT - 10 : null,
    endedAt: null,
    modifiedAt: AT,
    attempts: row.attempts ?? [],
    cacheKey: null,
    cacheParts: null,
    cachedFrom: null,
    cacheLookup: null,
    outputStamps: null,
    outputs: null,
  };
}

/** A task as the rules read it (the engine's LiveTask keeps the same indexes as jobs change). */
function taskOf(status: TaskStatus, rows: JobRow[], more: Partial<Task> = {}): TaskState {
  const task: Task = {
    id: 't',
    projectId: 'p',
    accountName: 'acc',
    projectName: 'default',
    name: 'task',
    workflowId: 'w',
    workflowName: 'wf',
    workflowVersion: 1,
    userName: 'u',
    status,
    reason: '',
    parameters: {},
    plan: {},
    scheduleAt: null,
    stopRequested: false,
    deleteRequested: false,
    heldBy: 'worker',
    createdAt: AT - 100,
    startedAt: status === 'scheduled' || status === 'queued' ? null : AT - 50,
    endedAt: null,
    modifiedAt: AT,
    ...more,
  };
  const jobs = rows.map((row) => ({ job: jobOf(row), spec: specOf(row), dependents: [] as JobState[], waitingOn: 0 }));
  const byId = new Map(jobs.map((j) => [j.job.id, j]));
  for (const entry of jobs) {
    for (const dep of upstreamOf(entry.spec)) {
      const upstream = byId.get(dep)!;
      upstream.dependents.push(entry);
      if (!unblocksDependents(upstream.job.status)) entry.waitingOn++;
    }
  }
  return { task, jobs, byId, failed: jobs.find((j) => j.job.status === 'failed'), allSucceeded: jobs.every((j) => unblocksDependents(j.job.status)) };
}

function workerOf(running: string[] = [], more: Partial<WorkerView> = {}): WorkerView {
  return { running: new Set(running), retry: DEFAULT_RETRY_POLICY, memoryMb: 8000, maxRestarts: 3, cleanupIntermediates: false, adopts: false, ...more };
}

const result = (outcome: AttemptResult['outcome'], exitCode: number | null, reason: string, more: Partial<AttemptResult> = {}): AttemptResult => ({
  outcome,
  exitCode,
  reason,
  startedAt: AT - 5,
  endedAt: AT,
  ...more,
});

const look: RuleEvent = { kind: 'look', at: AT };
const ended = (jobId: string, r: AttemptResult, more: { killedFor?: 'stop' | 'fail-fast' | 'shutdown'; memMb?: number } = {}): RuleEvent => ({
  kind: 'job-ended',
  jobId,
  result: r,
  killedFor: more.killedFor,
  memMb: more.memMb ?? 1000,
  at: AT,
});

/** A deferred job's spec, expanded into `children` when given. */
function stepSpec(id: string, children?: string[]): JobSpec {
  return specOf({ id, status: 'queued', kind: 'step', ...(children ? { children } : {}) });
}

/** A job an expansion adds. */
function addedJob(id: string, deps: string[]): AddedJob {
  return { id, taskId: 't', nodeId: id, name: id, command: '', spec: specOf({ id, status: 'queued', kind: 'step', deps }), attempt: 0, cpu: 0, memMb: 0 };
}

const resolvedEvent = (jobId: string, resolution: Resolution, killedFor?: 'stop' | 'shutdown'): RuleEvent => ({
  kind: 'job-resolved',
  jobId,
  resolution,
  killedFor,
  startedAt: AT - 1,
  at: AT,
});

// ---- reading a decision ----------------------------------------------------------------------------------------

/**
 * A decision's changes as lines, replayed from the state: `job a: running → succeeded (exit code 0)`, and
 * `stored: acc:/out/x from a` for the provenance of items a store step stored (from a, or ? when not known).
 */
function linesOf(state: TaskState, decision: Decision): string[] {
  let task = state.task.status;
  const jobs = new Map(state.jobs.map((j) => [j.job.id, j.job.status]));
  return decision.changes.map((change) => {
    if (change.kind === 'stored') return `stored: ${change.records.map((r) => `${r.account}:${r.path} from ${r.jobId ?? '?'}`).join(', ')}`;
    if (change.kind === 'task') {
      const { status, reason, ...rest } = change.patch;
      if (status === undefined) return `task: ${Object.keys(rest).join(', ')}`;
      const line = `task: ${task} → ${status} (${reason})`;
      task = status;
      return line;
    }
    if (change.kind === 'new-job') {
      jobs.set(change.job.id, change.job.status);
      return `job ${change.job.id}: added, ${change.job.status} (${change.job.reason})`;
    }
    const { status, reason, ...rest } = change.patch;
    if (status === undefined) return `job ${change.jobId}: ${Object.keys(rest).join(', ')}`;
    const line = `job ${change.jobId}: ${jobs.get(change.jobId)} → ${status} (${reason})`;
    jobs.set(change.jobId, status);
    return line;
  });
}

/** The transitions a decision makes, as `task from→to` and `job from→to`. */
function transitionsOf(state: TaskState, decision: Decision): string[] {
  return linesOf(state, decision).flatMap((line) => {
    const m = /^(task|job)[^:]*: (\w+) → (\w+)/.exec(line);
    return m ? [`${m[1]} ${m[2]}→${m[3]}`] : [];
  });
}

function patchOf(decision: Decision, jobId: string, status?: JobStatus): JobPatch {
  for (const c of decision.changes) if (c.kind === 'job' && c.jobId === jobId && (status === undefined || c.patch.status === status)) return c.patch;
  throw new Error(`no change of job ${jobId}`);
}

// ---- the cases -------------------------------------------------------------------------------------------------

interface Case {
  rule: string;
  state: TaskState;
  /** An event for decide, or one of the rules the API and the worker's claim call directly. */
  event: RuleEvent | { kind: 'api-stop' } | { kind: 'cannot-run'; why: string };
  worker?: WorkerView;
  changes: string[];
  effects?: Effect[];
  /** More about the patches than their status and reason. */
  check?: (decision: Decision) => void;
}

function run(c: Pick<Case, 'state' | 'event' | 'worker'>): Decision {
  const worker = c.worker ?? workerOf();
  if (c.event.kind === 'api-stop') return stopTask(c.state, NOTHING_RUNS_HERE, AT);
  if (c.event.kind === 'cannot-run') return cannotRun(c.state.task, AT, c.event.why);
  return decide(c.state, c.event, worker);
}

const retrying = { max_attempts: 3, on: ['exit_code', 'out_of_memory', 'executor_error'], memory_factor: 2, backoff_seconds: 10 };

const CASES: Case[] = [
  // advance: the start time
  {
    rule: 'advance: a scheduled task whose start time came is queued',
    state: taskOf('scheduled', [{ id: 'a', status: 'queued' }], { scheduleAt: AT - 1 }),
    event: look,
    changes: ['task: scheduled → queued (start time reached)'],
  },
  {
    rule: 'advance: a scheduled task claimed before its time by this clock waits for it',
    state: taskOf('scheduled', [{ id: 'a', status: 'queued' }], { scheduleAt: AT + 60 }),
    event: look,
    changes: [],
    effects: [{ kind: 'wake', at: AT + 60 }],
  },
  {
    rule: 'advance: a running task whose jobs are under way: nothing to decide',
    state: taskOf('running', [
      { id: 'a', status: 'running' },
      { id: 'b', status: 'waiting', deps: ['a'] },
    ]),
    event: look,
    worker: workerOf(['a']),
    changes: [],
  },
  // advance: stop, in each state a task can be stopped in
  {
    rule: 'stop: a scheduled task is stopped at once, its jobs cancelled',
    state: taskOf(
      'scheduled',
      [
        { id: 'a', status: 'queued' },
        { id: 'b', status: 'waiting', deps: ['a'] },
      ],
      { stopRequested: true, scheduleAt: AT + 60 },
    ),
    event: look,
    changes: [
      'job a: queued → cancelled (the task was stopped)',
      'job b: waiting → cancelled (the task was stopped)',
      'task: scheduled → stopped (stopped by request)',
    ],
    effects: [{ kind: 'release' }],
  },
  {
    rule: 'stop: a queued task whose first job is being started here waits for it to be killed',
    state: taskOf(
      'queued',
      [
        { id: 'a', status: 'queued' },
        { id: 'b', status: 'queued' },
      ],
      { stopRequested: true },
    ),
    event: look,
    worker: workerOf(['a']),
    changes: ['job b: queued → cancelled (the task was stopped)'],
    effects: [{ kind: 'kill', jobId: 'a', because: 'stop' }],
  },
  {
    rule: 'stop: a queued task with nothing running here is stopped',
    state: taskOf('queued', [{ id: 'a', status: 'queued' }], { stopRequested: true }),
    event: look,
    changes: ['job a: queued → cancelled (the task was stopped)', 'task: queued → stopped (stopped by request)'],
    effects: [{ kind: 'release' }],
  },
  {
    rule: 'stop: a running task is stopping while its job here is killed',
    state: taskOf(
      'running',
      [
        { id: 'a', status: 'succeeded' },
        { id: 'b', status: 'running', deps: ['a'] },
        { id: 'c', status: 'waiting', deps: ['b'] },
      ],
      { stopRequested: true },
    ),
    event: look,
    worker: workerOf(['b']),
    changes: ['task: running → stopping (stop requested)', 'job c: waiting → cancelled (the task was stopped)'],
    effects: [{ kind: 'kill', jobId: 'b', because: 'stop' }],
  },
  {
    rule: 'stop: a stopping task whose last job here ended is stopped and given up',
    state: taskOf(
      'stopping',
      [
        { id: 'a', status: 'cancelled' },
        { id: 'b', status: 'cancelled' },
      ],
      { stopRequested: true },
    ),
    event: look,
    changes: ['task: stopping → stopped (stopped by request)'],
    effects: [{ kind: 'release' }],
  },
  {
    rule: 'stop (API): a running task no worker holds, its job found running cancelled with an end time, the request written',
    state: taskOf('running', [
      { id: 'a', status: 'running' },
      { id: 'b', status: 'succeeded' },
    ]),
    event: { kind: 'api-stop' },
    changes: [
      'task: running → stopping (stop requested)',
      'job a: running → cancelled (the task was stopped)',
      'task: stopping → stopped (stopped by request)',
    ],
    check: (d) => {
      assert.equal(patchOf(d, 'a').endedAt, AT);
      const tasks = d.changes.filter((c) => c.kind === 'task');
      assert.ok(
        tasks.every((c) => c.kind === 'task' && c.patch.stopRequested === true),
        'the request is written with the stop',
      );
      assert.deepEqual(
        changesOf('t', d).tasks!.map((t) => t.patch.status),
        ['stopping', 'stopped'],
      );
      assert.deepEqual(
        changesOf('t', d).jobs!.map((j) => [j.id, j.taskId, j.patch.status]),
        [['a', 't', 'cancelled']],
      );
    },
  },
  {
    rule: 'stop: an ended task is left as it is',
    state: taskOf('succeeded', [{ id: 'a', status: 'succeeded' }]),
    event: { kind: 'api-stop' },
    changes: [],
  },
  // advance: fail fast
  {
    rule: 'fail-fast: a failed node kills the jobs running here and cancels the rest; the task waits for the kills',
    state: taskOf('running', [
      { id: 'a', status: 'failed', reason: 'exit code 3' },
      { id: 'b', status: 'running' },
      { id: 'c', status: 'waiting', deps: ['a'] },
    ]),
    event: look,
    worker: workerOf(['b']),
    changes: ['job c: waiting → cancelled (not run: node a failed)'],
    effects: [{ kind: 'kill', jobId: 'b', because: 'fail-fast' }],
  },
  {
    rule: 'fail-fast: once nothing runs here the task fails, naming the node, and is given up',
    state: taskOf('running', [
      { id: 'a', status: 'failed', reason: 'exit code 3' },
      { id: 'b', status: 'cancelled' },
      { id: 'c', status: 'queued' },
    ]),
    event: look,
    changes: ['job c: queued → cancelled (not run: node a failed)', 'task: running → failed (node a (tool-a) failed: exit code 3)'],
    effects: [{ kind: 'release' }],
  },
  {
    rule: 'fail-fast: a task whose only job could not start fails from queued',
    state: taskOf('queued', [{ id: 'a', status: 'failed', reason: 'no such image' }]),
    event: look,
    changes: ['task: queued → failed (node a (tool-a) failed: no such image)'],
    effects: [{ kind: 'release' }],
  },
  {
    rule: 'fail-fast: a job still running here keeps a failed task held until it has ended',
    state: taskOf('failed', [
      { id: 'a', status: 'failed' },
      { id: 'b', status: 'cancelled' },
    ]),
    event: look,
    worker: workerOf(['b']),
    changes: [],
  },
  // advance: the end
  {
    rule: 'succeed: every job succeeded, the task keeps its intermediates by default',
    state: taskOf('running', [
      { id: 'a', status: 'succeeded' },
      { id: 'b', status: 'succeeded', deps: ['a'] },
    ]),
    event: look,
    changes: ['task: running → succeeded (all 2 jobs succeeded)'],
    effects: [{ kind: 'release' }],
    check: (d) => assert.equal(d.changes[0]!.kind === 'task' && d.changes[0]!.patch.startedAt, undefined, 'a task that started keeps its start'),
  },
  {
    rule: 'succeed: a task every job of which succeeded before one was reported started, with its start time set',
    state: taskOf('queued', [{ id: 'a', status: 'succeeded' }]),
    event: look,
    changes: ['task: queued → succeeded (all 1 jobs succeeded)'],
    effects: [{ kind: 'release' }],
    check: (d) => assert.equal(d.changes[0]!.kind === 'task' && d.changes[0]!.patch.startedAt, AT),
  },
  {
    rule: 'succeed: the worker cleans up intermediates by default: tool jobs forget their stamps, their directories go',
    state: taskOf('running', [
      { id: 'l', status: 'succeeded', kind: 'load' },
      { id: 'a', status: 'succeeded', deps: ['l'] },
      { id: 's', status: 'succeeded', kind: 'store', deps: ['a'] },
    ]),
    event: look,
    worker: workerOf([], { cleanupIntermediates: true }),
    changes: ['task: running → succeeded (all 3 jobs succeeded)', 'job a: outputStamps'],
    effects: [{ kind: 'remove-intermediates', nodeIds: ['a'] }, { kind: 'release' }],
  },
  {
    rule: "succeed: a task's own cleanup_intermediates overrides the worker's",
    state: taskOf('running', [{ id: 'a', status: 'succeeded' }], { plan: { cleanup_intermediates: false } }),
    event: look,
    worker: workerOf([], { cleanupIntermediates: true }),
    changes: ['task: running → succeeded (all 1 jobs succeeded)'],
    effects: [{ kind: 'release' }],
  },
  // job started
  {
    rule: 'started: the first job of a queued task starts it',
    state: taskOf('queued', [{ id: 'a', status: 'queued', attempt: 1 }]),
    event: { kind: 'job-started', jobId: 'a', at: AT, imageDigest: 'sha256:abc' },
    changes: ['task: queued → running (first job started)', 'job a: queued → running (started)'],
    check: (d) => {
      const patch = patchOf(d, 'a', 'running');
      assert.deepEqual(patch, { status: 'running', reason: 'started', attempt: 1, startedAt: AT, endedAt: null, exitCode: null, imageDigest: 'sha256:abc' });
    },
  },
  {
    rule: "started: a retry's start names its attempt and records the executor's handle",
    state: taskOf('running', [{ id: 'a', status: 'queued', attempt: 2 }]),
    event: { kind: 'job-started', jobId: 'a', at: AT, externalId: 'slurm-42' },
    changes: ['job a: queued → running (attempt 2)'],
    check: (d) => assert.equal(patchOf(d, 'a').externalId, 'slurm-42'),
  },
  {
    rule: 'started: an adopted job that was running already only gets its new handle',
    state: taskOf('running', [{ id: 'a', status: 'running', externalId: 'old' }]),
    event: { kind: 'job-started', jobId: 'a', at: AT, externalId: 'new' },
    changes: ['job a: externalId'],
  },
  // job ended
  {
    rule: 'ended: a job that succeeded queues the jobs that waited only for it',
    state: taskOf('running', [
      { id: 'a', status: 'running' },
      { id: 'b', status: 'running' },
      { id: 'c', status: 'waiting', deps: ['a'] },
      { id: 'd', status: 'waiting', deps: ['a', 'b'] },
    ]),
    event: ended('a', result('succeeded', 0, 'exit code 0', { cacheKey: 'k1', cacheLookup: 'miss', outputStamps: {} })),
    changes: ['job a: running → succeeded (exit code 0)', 'job c: waiting → queued (upstream jobs succeeded)'],
    check: (d) => {
      const patch = patchOf(d, 'a');
      assert.equal(patch.cacheKey, 'k1');
      assert.equal(patch.cachedFrom, null);
      assert.equal(patch.attempts!.length, 1);
      const attempt = { attempt: 1, outcome: 'succeeded', exitCode: 0, reason: 'exit code 0', memMb: 1000, peakRssBytes: null, startedAt: AT - 5, endedAt: AT };
      assert.deepEqual(patch.attempts![0], attempt);
    },
  },
  {
    rule: 'ended: a fan-in job waits for its last upstream job',
    state: taskOf('running', [
      { id: 'a', status: 'succeeded' },
      { id: 'b', status: 'running' },
      { id: 'd', status: 'waiting', deps: ['a', 'b'] },
    ]),
    event: ended('b', result('succeeded', 0, 'exit code 0')),
    changes: ['job b: running → succeeded (exit code 0)', 'job d: waiting → queued (upstream jobs succeeded)'],
  },
  {
    rule: 'ended: an executor that did not report the start: the job started and ended in one decision',
    state: taskOf('queued', [{ id: 'a', status: 'queued', attempt: 1 }]),
    event: ended('a', result('succeeded', 0, 'exit code 0')),
    changes: ['task: queued → running (first job started)', 'job a: queued → running (started)', 'job a: running → succeeded (exit code 0)'],
  },
  {
    rule: 'ended: a store step records where each item it stored came from (the job that wrote it, or the load step), with its end',
    state: taskOf('running', [
      { id: 'l', status: 'succeeded', kind: 'load', items: [{ account: 'acc', path: '/in/r.fq' }] },
      { id: 'a', status: 'succeeded', deps: ['l'] },
      { id: 's', status: 'running', kind: 'store', deps: ['a', 'l'] },
    ]),
    event: ended(
      's',
      result('succeeded', 0, 'stored acc:/out/x.txt, acc:/out/r.fq', {
        stored: [
          { target: { account: 'acc', path: '/out/x.txt' }, source: { kind: 'job', jobId: 'a', nodeId: 'a', path: 'x.txt' }, size: 3, mtimeMs: 5 },
          { target: { account: 'acc', path: '/out/r.fq' }, source: { kind: 'data', account: 'acc', path: '/in/r.fq' }, size: 7, mtimeMs: 6 },
        ],
      }),
    ),
    changes: ['stored: acc:/out/x.txt from a, acc:/out/r.fq from l', 'job s: running → succeeded (stored acc:/out/x.txt, acc:/out/r.fq)'],
    check: (d) => {
      const first = { account: 'acc', path: '/out/x.txt', taskId: 't', taskName: 'task', jobId: 'a', nodeId: 'a', storeJobId: 's', storeNodeId: 's' };
      assert.deepEqual(changesOf('t', d).stored![0], { ...first, size: 3, mtimeMs: 5, storedAt: AT });
      assert.deepEqual(
        changesOf('t', d).jobs!.map((j) => j.patch.status),
        ['succeeded'],
        'written in the same changes as the end',
      );
    },
  },
  {
    rule: 'ended: a store step that failed after some items records those it stored',
    state: taskOf('running', [
      { id: 'a', status: 'succeeded' },
      { id: 's', status: 'running', kind: 'store', deps: ['a'] },
    ]),
    event: ended(
      's',
      result('failed', null, 'engine error: no space left on device', {
        stored: [{ target: { account: 'acc', path: '/out/x.txt' }, source: { kind: 'job', jobId: 'a', nodeId: 'a', path: 'x.txt' }, size: 3, mtimeMs: 5 }],
      }),
    ),
    changes: ['stored: acc:/out/x.txt from a', 'job s: running → failed (engine error: no space left on device)'],
  },
  {
    rule: 'ended: killed by a stop',
    state: taskOf('stopping', [{ id: 'a', status: 'running' }], { stopRequested: true }),
    event: ended('a', result('killed', null, 'killed by SIGTERM'), { killedFor: 'stop' }),
    changes: ['job a: running → cancelled (killed: the task was stopped)'],
  },
  {
    rule: 'ended: killed because another node failed',
    state: taskOf('running', [
      { id: 'a', status: 'failed' },
      { id: 'b', status: 'running' },
    ]),
    event: ended('b', result('killed', null, 'killed by SIGTERM'), { killedFor: 'fail-fast' }),
    changes: ['job b: running → cancelled (killed: another node of the task failed)'],
  },
  {
    rule: 'ended: killed before its process started (a stop during the start)',
    state: taskOf('running', [{ id: 'a', status: 'queued', attempt: 1 }], { stopRequested: true }),
    event: ended('a', result('killed', null, 'stopped'), { killedFor: 'stop' }),
    changes: ['job a: queued → cancelled (killed: the task was stopped)'],
    check: (d) => assert.deepEqual(patchOf(d, 'a').attempts, [], 'an attempt that never ran is not kept'),
  },
  {
    rule: 'ended: killed by a shutdown while it ran: queued again, to run from scratch wherever the task goes',
    state: taskOf('running', [{ id: 'a', status: 'running' }]),
    event: ended('a', result('killed', 137, 'killed by SIGTERM'), { killedFor: 'shutdown' }),
    changes: ['job a: running → queued (its worker shut down while it ran; it runs again from scratch)'],
  },
  {
    rule: 'ended: killed by a shutdown before it started: back to the queue as it was',
    state: taskOf('running', [{ id: 'a', status: 'queued', attempt: 1 }]),
    event: ended('a', result('killed', null, 'stopped'), { killedFor: 'shutdown' }),
    changes: [],
    effects: [{ kind: 'not-started', jobId: 'a' }],
  },
  {
    rule: 'retry: a failed attempt the policy names runs again after its backoff',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 1, retry: retrying }]),
    event: ended('a', result('failed', 3, 'exit code 3')),
    changes: ['job a: running → queued (attempt 1 exit_code: exit code 3; attempt 2 runs in 10 s)'],
    effects: [{ kind: 'hold', jobId: 'a', until: AT + 10 }],
  },
  {
    rule: 'retry: the backoff doubles for each further attempt',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 2, retry: retrying }]),
    event: ended('a', result('failed', 3, 'exit code 3')),
    changes: ['job a: running → queued (attempt 2 exit_code: exit code 3; attempt 3 runs in 20 s)'],
    effects: [{ kind: 'hold', jobId: 'a', until: AT + 20 }],
  },
  {
    rule: 'retry: out of memory runs again with more memory',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 1, retry: { ...retrying, backoff_seconds: 0 } }]),
    event: ended('a', result('out_of_memory', 137, 'out of memory'), { memMb: 1000 }),
    changes: ['job a: running → queued (attempt 1 out_of_memory: out of memory; attempt 2 runs, with 2000 MB)'],
    effects: [{ kind: 'hold', jobId: 'a', until: null }],
    check: (d) => assert.equal(patchOf(d, 'a').memMb, 2000),
  },
  {
    rule: 'retry: out of memory with no more memory to give fails, saying so',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 1, retry: retrying }]),
    event: ended('a', result('out_of_memory', 137, 'out of memory'), { memMb: 8000 }),
    changes: ['job a: running → failed (out of memory (no more memory to give than 8000 MB))'],
  },
  {
    rule: 'retry: a start that failed is tried again (queued → queued)',
    state: taskOf('running', [{ id: 'a', status: 'queued', attempt: 1, retry: { ...retrying, backoff_seconds: 0 } }]),
    event: ended('a', result('failed', null, 'no such image')),
    changes: ['job a: queued → queued (attempt 1 executor_error: no such image; attempt 2 runs)'],
    effects: [{ kind: 'hold', jobId: 'a', until: null }],
  },
  {
    rule: 'ended: a job whose process could not be started fails from queued (no policy retries it)',
    state: taskOf('running', [{ id: 'a', status: 'queued', attempt: 1 }]),
    event: ended('a', result('failed', null, "image 'x' not found")),
    changes: ["job a: queued → failed (image 'x' not found)"],
  },
  {
    rule: 'retry: no retries left fails the job, saying so',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 3, retry: retrying }]),
    event: ended('a', result('failed', 3, 'exit code 3')),
    changes: ['job a: running → failed (exit code 3 (attempt 3 of 3, no retries left))'],
  },
  {
    rule: 'retry: a failure the policy does not name fails the job',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 1, retry: { max_attempts: 3, on: ['out_of_memory'] } }]),
    event: ended('a', result('failed', 3, 'exit code 3')),
    changes: ['job a: running → failed (exit code 3)'],
  },
  {
    rule: 'retry: without a policy, only a lost worker is retried (the default)',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 1 }]),
    event: ended('a', result('failed', 1, 'exit code 1')),
    changes: ['job a: running → failed (exit code 1)'],
  },
  {
    rule: 'retry: an adopted job gone without a trace is retried by the default policy',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 1, externalId: 'c1' }]),
    event: ended('a', result('lost', null, 'its container is gone')),
    changes: ['job a: running → queued (attempt 1 lost_worker: its container is gone; attempt 2 runs)'],
    effects: [{ kind: 'hold', jobId: 'a', until: null }],
  },
  {
    rule: "retry: the worker's own policy applies to tools without one",
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 1 }]),
    event: ended('a', result('timed_out', null, 'timed out after 5 s')),
    worker: workerOf([], { retry: { ...DEFAULT_RETRY_POLICY, on: ['timeout'], backoffSeconds: 1 } }),
    changes: ['job a: running → queued (attempt 1 timeout: timed out after 5 s; attempt 2 runs in 1 s)'],
    effects: [{ kind: 'hold', jobId: 'a', until: AT + 1 }],
  },
  // the call cache ahead of the start
  {
    rule: 'cache hit: the job ends succeeded from the cache, starting its task',
    state: taskOf('queued', [
      { id: 'a', status: 'queued', attempt: 1 },
      { id: 'b', status: 'waiting', deps: ['a'] },
    ]),
    event: {
      kind: 'cache-probed',
      jobId: 'a',
      memMb: 1000,
      at: AT,
      hit: result('succeeded', 0, 'from the call cache: the outputs of job x', { cachedFrom: 'x', cacheKey: 'k', cacheLookup: 'hit' }),
    },
    changes: [
      'task: queued → running (first job started)',
      'job a: queued → running (started)',
      'job a: running → succeeded (from the call cache: the outputs of job x)',
      'job b: waiting → queued (upstream jobs succeeded)',
    ],
    check: (d) => assert.equal(patchOf(d, 'a', 'succeeded').cachedFrom, 'x'),
  },
  {
    rule: 'cache miss: back to the queue, to run with its key',
    state: taskOf('running', [{ id: 'a', status: 'queued', attempt: 1 }]),
    event: { kind: 'cache-probed', jobId: 'a', memMb: 1000, at: AT, hit: undefined },
    changes: [],
    effects: [{ kind: 'not-started', jobId: 'a' }],
  },
  // take-over
  {
    rule: 'take-over: a job found running died with its worker: it runs again from scratch; ready jobs are queued',
    state: taskOf('running', [
      { id: 'a', status: 'succeeded' },
      { id: 'b', status: 'running', deps: ['a'], attempt: 1 },
      { id: 'c', status: 'waiting', deps: ['a'] },
    ]),
    event: { kind: 'taken-over', at: AT },
    changes: [
      'job b: running → queued (runs again from scratch: its worker was lost while attempt 1 was running)',
      'job c: waiting → queued (upstream jobs succeeded)',
    ],
    effects: [{ kind: 'log', level: 'warn', message: 'took over a job whose worker was lost while it ran', fields: { job: 'b', status: 'queued' } }],
    check: (d) => assert.equal(patchOf(d, 'b').attempts![0]!.outcome, 'lost'),
  },
  {
    rule: 'take-over: a job lost with its worker as many times as allowed fails',
    state: taskOf('running', [{ id: 'a', status: 'running', attempt: 3 }]),
    event: { kind: 'taken-over', at: AT },
    changes: ['job a: running → failed (its worker was lost 3 times while this job was running)'],
    effects: [{ kind: 'log', level: 'warn', message: 'took over a job whose worker was lost while it ran', fields: { job: 'a', status: 'failed' } }],
  },
  {
    rule: "take-over: a job with an executor's handle is followed, not run again, where the executor can",
    state: taskOf('running', [{ id: 'a', status: 'running', externalId: 'gdflow-a' }]),
    event: { kind: 'taken-over', at: AT },
    worker: workerOf([], { adopts: true }),
    changes: [],
    effects: [
      { kind: 'adopt', jobId: 'a', handle: 'gdflow-a' },
      { kind: 'log', level: 'info', message: 'adopting a job its previous worker started', fields: { job: 'a', handle: 'gdflow-a' } },
    ],
  },
  {
    rule: 'take-over: a new task: its jobs without deps are queued already, nothing to do',
    state: taskOf('queued', [
      { id: 'a', status: 'queued' },
      { id: 'b', status: 'waiting', deps: ['a'] },
    ]),
    event: { kind: 'taken-over', at: AT },
    changes: [],
  },
  // deferred jobs: resolved, gathered
  {
    rule: 'resolved into a run: the job stays queued with its run, CPU and memory, and goes back to the queue',
    state: taskOf('queued', [{ id: 'a', status: 'queued', kind: 'step' }]),
    event: resolvedEvent('a', { kind: 'run', spec: stepSpec('a'), command: 'echo hi', cpu: 2, memMb: 512 }),
    changes: ['job a: spec, command, cpu, memMb'],
    effects: [{ kind: 'ready', jobId: 'a' }],
    check: (d) => assert.deepEqual(patchOf(d, 'a').cpu, 2),
  },
  {
    rule: 'resolved into a value: the job runs and succeeds with its outputs in one decision; the jobs after it are queued',
    state: taskOf('queued', [
      { id: 'a', status: 'queued', kind: 'step' },
      { id: 'b', status: 'waiting', deps: ['a'], kind: 'step' },
    ]),
    event: resolvedEvent('a', { kind: 'value', outputs: { x: 1 }, reason: 'its outputs were evaluated' }),
    changes: [
      'task: queued → running (first job started)',
      'job a: queued → running (started)',
      'job a: running → succeeded (its outputs were evaluated)',
      'job b: waiting → queued (upstream jobs succeeded)',
    ],
    check: (d) => assert.deepEqual(patchOf(d, 'a', 'succeeded').outputs, { x: 1 }),
  },
  {
    rule: 'resolved into a skip: the job is skipped with null outputs, and a skipped job lets the jobs after it run',
    state: taskOf('running', [
      { id: 'a', status: 'queued', kind: 'step' },
      { id: 'b', status: 'waiting', deps: ['a'], kind: 'step' },
    ]),
    event: resolvedEvent('a', { kind: 'skip', outputs: { x: null }, reason: 'skipped: its condition is false' }),
    changes: ['job a: queued → skipped (skipped: its condition is false)', 'job b: waiting → queued (upstream jobs succeeded)'],
    check: (d) => assert.deepEqual(patchOf(d, 'a', 'skipped').outputs, { x: null }),
  },
  {
    rule: 'resolved into an expansion: the jobs it adds start queued or waiting, and it runs until they end',
    state: taskOf('running', [{ id: 'a', status: 'queued', kind: 'step' }]),
    event: resolvedEvent('a', {
      kind: 'expand',
      spec: stepSpec('a', ['c1', 'c2']),
      jobs: [addedJob('c1', []), addedJob('c2', ['c1'])],
    }),
    changes: [
      'job c1: added, queued (ready)',
      'job c2: added, waiting (waiting for upstream jobs)',
      'job a: queued → running (waiting for the 2 job(s) it added)',
    ],
  },
  {
    rule: 'resolved into an empty expansion (an empty scatter): it gathers at once',
    state: taskOf('running', [{ id: 'a', status: 'queued', kind: 'step' }]),
    event: resolvedEvent('a', { kind: 'expand', spec: stepSpec('a', []), jobs: [] }),
    changes: ['job a: queued → running (nothing to run)'],
    effects: [{ kind: 'gather', jobId: 'a' }],
  },
  {
    rule: 'resolution failed (an expression failed): the job fails with the reason',
    state: taskOf('running', [{ id: 'a', status: 'queued', kind: 'step' }]),
    event: resolvedEvent('a', { kind: 'fail', reason: "step 'x', valueFrom of input 'y': boom" }),
    changes: ["job a: queued → failed (step 'x', valueFrom of input 'y': boom)"],
  },
  {
    rule: 'a resolution killed by a stop: the job is cancelled',
    state: taskOf('stopping', [{ id: 'a', status: 'queued', kind: 'step' }], { stopRequested: true }),
    event: resolvedEvent('a', { kind: 'fail', reason: 'aborted' }, 'stop'),
    changes: ['job a: queued → cancelled (the task was stopped)'],
  },
  {
    rule: 'a resolution cut short by a shutdown: the job goes back to the queue as it was',
    state: taskOf('running', [{ id: 'a', status: 'queued', kind: 'step' }]),
    event: resolvedEvent('a', { kind: 'fail', reason: 'aborted' }, 'shutdown'),
    changes: [],
    effects: [{ kind: 'ready', jobId: 'a' }],
  },
  {
    rule: 'the last job an expansion added succeeds: the job that added it gathers',
    state: taskOf('running', [
      { id: 'a', status: 'running', kind: 'step', children: ['c1', 'c2'] },
      { id: 'c1', status: 'skipped', kind: 'step' },
      { id: 'c2', status: 'running', kind: 'step' },
    ]),
    event: ended('c2', result('succeeded', 0, 'exit code 0')),
    worker: workerOf(['c2']),
    changes: ['job c2: running → succeeded (exit code 0)'],
    effects: [{ kind: 'gather', jobId: 'a' }],
  },
  {
    rule: 'gathered: the job succeeds with the gathered outputs, and the jobs after it are queued',
    state: taskOf('running', [
      { id: 'a', status: 'running', kind: 'step', children: ['c1'] },
      { id: 'c1', status: 'succeeded', kind: 'step' },
      { id: 'b', status: 'waiting', deps: ['a'], kind: 'step' },
    ]),
    event: { kind: 'job-gathered', jobId: 'a', outcome: { outputs: { out: [1] } }, killedFor: undefined, at: AT },
    worker: workerOf(['a']),
    changes: ['job a: running → succeeded (the jobs it added ended)', 'job b: waiting → queued (upstream jobs succeeded)'],
    check: (d) => assert.deepEqual(patchOf(d, 'a', 'succeeded').outputs, { out: [1] }),
  },
  {
    rule: 'gathering failed (an output of the wrong type): the job fails',
    state: taskOf('running', [{ id: 'a', status: 'running', kind: 'step', children: [] }]),
    event: { kind: 'job-gathered', jobId: 'a', outcome: { reason: "output 'o' is null" }, killedFor: undefined, at: AT },
    worker: workerOf(['a']),
    changes: ["job a: running → failed (output 'o' is null)"],
  },
  {
    rule: 'take-over: a job that expanded is not lost with its worker; one whose jobs have all ended is gathered',
    state: taskOf('running', [
      { id: 'a', status: 'running', kind: 'step', children: ['c1'] },
      { id: 'c1', status: 'succeeded', kind: 'step' },
      { id: 'b', status: 'running', kind: 'step', children: ['c2'] },
      { id: 'c2', status: 'queued', kind: 'step' },
    ]),
    event: { kind: 'taken-over', at: AT },
    changes: [],
    effects: [{ kind: 'gather', jobId: 'a' }],
  },
  // delete, cannot run, halt
  {
    rule: 'delete: the jobs running here are killed first',
    state: taskOf('running', [
      { id: 'a', status: 'running' },
      { id: 'b', status: 'queued' },
    ]),
    event: { kind: 'delete' },
    worker: workerOf(['a', 'b']),
    changes: [],
    effects: [
      { kind: 'kill', jobId: 'a', because: 'stop' },
      { kind: 'kill', jobId: 'b', because: 'stop' },
    ],
  },
  {
    rule: 'delete: once nothing runs here, the task is removed',
    state: taskOf('running', [{ id: 'a', status: 'cancelled' }]),
    event: { kind: 'delete' },
    changes: [],
    effects: [{ kind: 'remove-task' }],
  },
  {
    rule: 'cannot run: a scheduled task whose jobs this version cannot read fails',
    state: taskOf('scheduled', []),
    event: { kind: 'cannot-run', why: 'unknown job kind' },
    changes: ['task: scheduled → failed (cannot run: unknown job kind)'],
    effects: [{ kind: 'release' }],
  },
  {
    rule: 'cannot run: a task being stopped is stopped',
    state: taskOf('stopping', [], { stopRequested: true }),
    event: { kind: 'cannot-run', why: 'unknown job kind' },
    changes: ['task: stopping → stopped (cannot run: unknown job kind)'],
    effects: [{ kind: 'release' }],
  },
  {
    rule: 'halt: rules that went wrong end the task through legal transitions, its jobs here killed unrecorded',
    state: taskOf('running', [
      { id: 'a', status: 'running' },
      { id: 'b', status: 'waiting', deps: ['a'] },
      { id: 'c', status: 'succeeded' },
    ]),
    event: { kind: 'halt', at: AT, error: new IllegalTransition('job', 'c', 'succeeded', 'running') },
    worker: workerOf(['a']),
    changes: [
      'job a: running → cancelled (engine error: job c cannot go from succeeded to running (docs/tasks.md, "States"))',
      'job b: waiting → cancelled (engine error: job c cannot go from succeeded to running (docs/tasks.md, "States"))',
      'task: running → failed (engine error: job c cannot go from succeeded to running (docs/tasks.md, "States"))',
    ],
    effects: [
      { kind: 'kill', jobId: 'a', because: 'lost' },
      { kind: 'release' },
      {
        kind: 'log',
        level: 'error',
        message: 'ended a task whose rules asked for a transition the state table forbids',
        fields: { task: 't', error: 'job c cannot go from succeeded to running (docs/tasks.md, "States")' },
      },
    ],
  },
  {
    rule: 'halt: a stopping task, which cannot fail, is stopped',
    state: taskOf('stopping', [{ id: 'a', status: 'queued' }], { stopRequested: true }),
    event: { kind: 'halt', at: AT, error: new IllegalTransition('task', 't', 'stopping', 'failed') },
    changes: [
      'job a: queued → cancelled (engine error: task t cannot go from stopping to failed (docs/tasks.md, "States"))',
      'task: stopping → stopped (engine error: task t cannot go from stopping to failed (docs/tasks.md, "States"))',
    ],
    effects: [
      { kind: 'release' },
      {
        kind: 'log',
        level: 'error',
        message: 'ended a task whose rules asked for a transition the state table forbids',
        fields: { task: 't', error: 'task t cannot go from stopping to failed (docs/tasks.md, "States")' },
      },
    ],
  },
];

/** Events that would make a transition the table does not have: the rules refuse them, whatever the engine did wrong. */
interface IllegalCase {
  rule: string;
  state: TaskState;
  event: RuleEvent;
  worker?: WorkerView;
  refused: [subject: 'task' | 'job', from: string, to: string];
}

const ILLEGAL: IllegalCase[] = [
  {
    rule: 'a late end of a job already cancelled',
    state: taskOf('stopped', [{ id: 'a', status: 'cancelled' }]),
    event: ended('a', result('succeeded', 0, 'exit code 0')),
    refused: ['job', 'cancelled', 'succeeded'],
  },
  {
    rule: 'a second end of a job that succeeded',
    state: taskOf('running', [{ id: 'a', status: 'succeeded' }]),
    event: ended('a', result('failed', 1, 'exit code 1')),
    refused: ['job', 'succeeded', 'failed'],
  },
  {
    rule: 'a kill reported for a job that succeeded',
    state: taskOf('running', [{ id: 'a', status: 'succeeded' }]),
    event: ended('a', result('killed', null, 'killed'), { killedFor: 'stop' }),
    refused: ['job', 'succeeded', 'cancelled'],
  },
  {
    rule: 'the end of a job that never left waiting',
    state: taskOf('running', [{ id: 'a', status: 'waiting' }]),
    event: ended('a', result('failed', 1, 'exit code 1')),
    refused: ['job', 'waiting', 'failed'],
  },
  {
    rule: 'a cache hit for a job cancelled meanwhile',
    state: taskOf('stopping', [{ id: 'a', status: 'cancelled' }], { stopRequested: true }),
    event: { kind: 'cache-probed', jobId: 'a', memMb: 1000, at: AT, hit: result('succeeded', 0, 'from the call cache') },
    refused: ['job', 'cancelled', 'succeeded'],
  },
  {
    rule: 'a stopping task without its stop request, with a failed job',
    state: taskOf('stopping', [{ id: 'a', status: 'failed' }]),
    event: look,
    refused: ['task', 'stopping', 'failed'],
  },
  {
    rule: 'a stopping task without its stop request, every job succeeded',
    state: taskOf('stopping', [{ id: 'a', status: 'succeeded' }]),
    event: look,
    refused: ['task', 'stopping', 'succeeded'],
  },
];

// ---- the tests -------------------------------------------------------------------------------------------------

describe('the state table', () => {
  const pairs = <S extends string>(states: readonly S[]) => states.flatMap((from) => states.map((to) => [from, to] as const));

  for (const [from, to] of pairs(TASK_STATES)) {
    const legal = TASK_TRANSITIONS[from].includes(to);
    it(`task ${from} → ${to}: ${legal ? 'allowed' : 'refused'}`, () => {
      if (legal) return assert.doesNotThrow(() => checkTaskTransition('t', from, to));
      const refused = (e: unknown) => e instanceof IllegalTransition && e.subject === 'task' && e.from === from && e.to === to;
      assert.throws(() => checkTaskTransition('t', from, to), refused);
    });
  }
  for (const [from, to] of pairs(JOB_STATES)) {
    const legal = JOB_TRANSITIONS[from].includes(to);
    it(`job ${from} → ${to}: ${legal ? 'allowed' : 'refused'}`, () => {
      if (legal) return assert.doesNotThrow(() => checkJobTransition('j', from, to));
      const refused = (e: unknown) => e instanceof IllegalTransition && e.subject === 'job' && e.from === from && e.to === to;
      assert.throws(() => checkJobTransition('j', from, to), refused);
    });
  }

  it('has as ends exactly the states with no way out, and every state reachable from the first', () => {
    assert.deepEqual(TERMINAL_TASK_STATES, ['succeeded', 'failed', 'stopped']);
    assert.deepEqual(TERMINAL_JOB_STATES, ['succeeded', 'failed', 'skipped', 'cancelled']);
    const reachable = <S extends string>(table: Record<S, readonly S[]>, first: S) => {
      const seen = new Set<S>([first]);
      for (const s of seen) for (const next of table[s]) seen.add(next);
      return [...seen].sort();
    };
    assert.deepEqual(reachable(TASK_TRANSITIONS, 'scheduled'), [...TASK_STATES].sort());
    assert.deepEqual(reachable(JOB_TRANSITIONS, 'waiting'), [...JOB_STATES].sort());
  });
});

describe('the task and job rules', () => {
  for (const c of CASES) {
    it(c.rule, () => {
      const decision = run(c);
      assert.deepEqual(linesOf(c.state, decision), c.changes);
      assert.deepEqual(decision.effects, c.effects ?? []);
      c.check?.(decision);
    });
  }

  it('make every transition of the state table in some case', () => {
    const made = new Set(CASES.flatMap((c) => transitionsOf(c.state, run(c))));
    const table = [
      ...TASK_STATES.flatMap((from) => TASK_TRANSITIONS[from].map((to) => `task ${from}→${to}`)),
      ...JOB_STATES.flatMap((from) => JOB_TRANSITIONS[from].map((to) => `job ${from}→${to}`)),
    ];
    assert.deepEqual(
      table.filter((t) => !made.has(t)),
      [],
      'transitions of the table no rule makes',
    );
    assert.deepEqual(
      [...made].filter((t) => !table.includes(t)),
      [],
      'transitions made outside the table',
    );
  });

  for (const c of ILLEGAL) {
    it(`refuse ${c.rule}: ${c.refused[0]} ${c.refused[1]} → ${c.refused[2]}`, () => {
      assert.throws(
        () => decide(c.state, c.event, c.worker ?? workerOf()),
        (e: unknown) => e instanceof IllegalTransition && e.subject === c.refused[0] && e.from === c.refused[1] && e.to === c.refused[2],
      );
    });
  }

  it('halt any task that has not ended through legal transitions only', () => {
    for (const status of TASK_STATES.filter((s) => !TERMINAL_TASK_STATES.includes(s))) {
      const state = taskOf(
        status,
        JOB_STATES.map((s, i) => ({ id: `j${i}`, status: s })),
      );
      const decision = decide(state, { kind: 'halt', at: AT, error: new IllegalTransition('job', 'x', 'succeeded', 'running') }, workerOf(['j2']));
      const lines = linesOf(state, decision);
      assert.ok(lines.at(-1)!.startsWith(`task: ${status} → ${status === 'stopping' ? 'stopped' : 'failed'} (engine error: `), lines.join('\n'));
      assert.equal(lines.filter((l) => l.startsWith('job ')).length, 3, 'the unfinished jobs (waiting, queued, running) are cancelled');
    }
  });

  it('do not change the state they are given', () => {
    const state = taskOf('running', [
      { id: 'a', status: 'running' },
      { id: 'b', status: 'waiting', deps: ['a'] },
    ]);
    const before = structuredClone(state.jobs.map((j) => j.job));
    decide(state, ended('a', result('succeeded', 0, 'exit code 0')), workerOf());
    assert.deepEqual(
      state.jobs.map((j) => j.job),
      before,
    );
    assert.equal(state.jobs[1]!.waitingOn, 1);
  });
});
