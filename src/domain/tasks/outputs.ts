import type { DataProvenance, Job, JobStatus, Task } from '../../store/store.js';
import { formatDataName } from '../../data/index.js';
import { roundTime } from '../time.js';
import { parseJobSpec, type FileSource, type JobSpec } from './job-spec.js';
import { TERMINAL_TASK_STATES } from './states.js';

/**
 * A task's outputs (docs/tasks.md, "Outputs"): what its store steps put, or were to put, in the data store, which job
 * wrote each file, and whether the item in the store is still what the task stored. Plain functions over what the
 * store and the data store say.
 */

/**
 * Where an item's state stands: `stored` (the item is what the task stored), `pending` (its store step has not
 * stored it yet), `not_stored` (the task ended without storing it), `replaced` (something else has been put there
 * since) or `missing` (deleted since).
 */
export type OutputState = 'stored' | 'pending' | 'not_stored' | 'replaced' | 'missing';

/** A stamp: what tells that a data item is still the one recorded. */
interface Stamp {
  size: number;
  mtimeMs: number;
}

/**
 * The job that wrote a stored file: the upstream job whose output it is, or, for an item a store step copies as it
 * was loaded, the load step that named it (among the store step's upstream jobs). Null when neither is known.
 */
export function producerOf(
  source: FileSource,
  deps: readonly string[],
  specOf: (jobId: string) => JobSpec | undefined,
): { jobId: string; nodeId: string } | null {
  if (source.kind === 'job') return { jobId: source.jobId, nodeId: source.nodeId };
  for (const dep of deps) {
    const spec = specOf(dep);
    if (spec?.kind === 'load' && spec.items.some((i) => i.account === source.account && i.path === source.path)) return { jobId: dep, nodeId: spec.nodeId };
  }
  return null;
}

/** One item a store step put in the data store: where from, and its stamp there (for its provenance). */
export interface StoredItem extends Stamp {
  target: { account: string; path: string };
  source: FileSource;
}

/** The items a store step put in the data store, as provenance records (written with the step's end: rules/job-rules.ts). */
export function provenanceOf(
  task: Pick<Task, 'id' | 'name'>,
  saveJob: { id: string; spec: JobSpec },
  stored: readonly StoredItem[],
  specOf: (jobId: string) => JobSpec | undefined,
  at: number,
): DataProvenance[] {
  return stored.map((item) => {
    const producer = producerOf(item.source, saveJob.spec.deps, specOf);
    return {
      account: item.target.account,
      path: item.target.path,
      taskId: task.id,
      taskName: task.name,
      jobId: producer?.jobId ?? null,
      nodeId: producer?.nodeId ?? null,
      storeJobId: saveJob.id,
      storeNodeId: saveJob.spec.nodeId,
      size: item.size,
      mtimeMs: item.mtimeMs,
      storedAt: at,
    };
  });
}

/** Whether an item still is what a provenance record describes (an upload over it, or a later store, changes its stamp). */
export const stillStored = (recorded: Stamp, item: Stamp | undefined): boolean =>
  item !== undefined && item.size === recorded.size && item.mtimeMs === recorded.mtimeMs;

/** A task that ended without succeeding: what it stored is only a part of what it would have. */
export const endedPartly = (status: string): boolean => status === 'failed' || status === 'stopped';

/** The state of one planned output of a task. */
export function outputStateOf(input: {
  taskId: string;
  taskEnded: boolean;
  saveJobStatus: JobStatus;
  provenance: (Stamp & { taskId: string }) | undefined;
  item: Stamp | undefined;
}): OutputState {
  const { provenance, item } = input;
  if (provenance?.taskId === input.taskId) return item === undefined ? 'missing' : stillStored(provenance, item) ? 'stored' : 'replaced';
  // Another task stored to the name after this one did, or instead of it.
  if (provenance) return input.saveJobStatus === 'succeeded' ? 'replaced' : input.taskEnded ? 'not_stored' : 'pending';
  // Stored before provenance was recorded (an earlier version): the store step's end says it.
  if (input.saveJobStatus === 'succeeded') return item === undefined ? 'missing' : 'stored';
  return input.taskEnded ? 'not_stored' : 'pending';
}

/** The output port of an upstream job's file (`outputs/<port>/<file>`), or null. */
function portOf(source: FileSource): string | null {
  if (source.kind !== 'job') return null;
  const [first, port] = source.path.split('/');
  return first === 'outputs' && port ? port : null;
}

/** What the answer of GET tasks/<id>/outputs/ is made of (the route reads provenance and stats for these names). */
export function plannedOutputs(jobs: Job[]): Array<{
  target: { account: string; path: string };
  description: string;
  saveJob: Job;
  source: FileSource;
  producer: { jobId: string; nodeId: string } | null;
}> {
  const specs = new Map<string, JobSpec>();
  for (const job of jobs) {
    try {
      specs.set(job.id, parseJobSpec(job.spec));
    } catch {
      // a spec this version does not read: its job is left out
    }
  }
  return jobs.flatMap((job) => {
    const spec = specs.get(job.id);
    if (spec?.kind !== 'store') return [];
    return spec.imports.map((entry) => ({
      target: entry.target,
      description: entry.description,
      saveJob: job,
      source: entry.source,
      producer: producerOf(entry.source, spec.deps, (id) => specs.get(id)),
    }));
  });
}

/** The answer of GET tasks/<id>/outputs/ (contract/tasks.ts, taskOutputs). */
export function taskOutputsView(
  task: Task,
  planned: ReturnType<typeof plannedOutputs>,
  provenance: Map<string, DataProvenance>,
  items: Map<string, (Stamp & { modifiedAt: number }) | undefined>,
) {
  const ended = TERMINAL_TASK_STATES.includes(task.status);
  const partial = endedPartly(task.status);
  const outputs = planned.map((p) => {
    const name = formatDataName(p.target);
    const item = items.get(name);
    const state = outputStateOf({ taskId: task.id, taskEnded: ended, saveJobStatus: p.saveJob.status, provenance: provenance.get(name), item });
    const here = state === 'stored' && item !== undefined;
    return {
      name,
      description: p.description,
      state,
      partial: partial && state === 'stored',
      size: here ? item.size : null,
      modified_time: here ? roundTime(item.modifiedAt) : null,
      node_id: p.producer?.nodeId ?? null,
      job_id: p.producer?.jobId ?? null,
      output: portOf(p.source),
      store_node_id: p.saveJob.nodeId,
      store_job_id: p.saveJob.id,
    };
  });
  return { task_id: task.id, task_name: task.name, status: task.status, partial, outputs, count: outputs.length };
}
