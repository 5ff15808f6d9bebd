import type { TesState } from '../../contract/ga4gh-states.js';
import type { DataRef } from '../../data/index.js';
import type { Job, Task } from '../../store/store.js';
import { isObject } from '../json.js';
import type { TesJobPart } from '../tasks/job-spec.js';
import type { TesTaskBody } from './compile.js';
import { jobRelativePath, TES_DIR_RELATIVE } from './paths.js';
import { executorFiles } from './script.js';

/**
 * The three views of a TES task (docs/ga4gh.md, "Views"): MINIMAL (id and state), BASIC (the task as sent, without
 * inputs' content, with its logs but not the executors' stdout and stderr nor the system logs) and FULL (all).
 */

export type TesView = 'MINIMAL' | 'BASIC' | 'FULL';

/** What a TES view reads from a task's files and the data store (the engine's side implements it). */
export interface TesFiles {
  /** A file of the task's job directory (relative path), its last `maxBytes`; undefined when it is not there. */
  read(taskId: string, relative: string, maxBytes: number): Promise<string | undefined>;
  /** When a file of the task's job directory was last written (milliseconds since the epoch); undefined when absent. */
  modified(taskId: string, relative: string): Promise<number | undefined>;
  /** The items below a data store directory, with their sizes (paths relative to it). */
  listStored(ref: DataRef): Promise<Array<{ relative: string; size: number }>>;
  /** A stored item's size, or undefined. */
  storedSize(ref: DataRef): Promise<number | undefined>;
}

const LOG_TAIL = 64 * 1024;

/** One OutputFileLog: a file the task's outputs stored. */
export interface TesOutputLog {
  url: string;
  path: string;
  size_bytes: string;
}

/** Where the worker lists what a task's outputs stored (engine/tes-outputs.ts), relative to its job directory. */
export const TES_OUTPUTS_FILE = `${TES_DIR_RELATIVE}/outputs.json`;
/** Largest list of stored outputs read back (10,000 files of long names). */
const OUTPUTS_BYTES = 64 * 1024 * 1024;
const rfc3339 = (seconds: number | null | undefined): string | undefined =>
  seconds === null || seconds === undefined ? undefined : new Date(seconds * 1000).toISOString();

/** The TES document of a task as it was sent (kept in its parameters). */
export function tesDocument(task: Task): TesTaskBody | undefined {
  const tes = task.parameters.tes;
  return isObject(tes) ? (tes as unknown as TesTaskBody) : undefined;
}

/** The `tes` part of the task's job spec, when it has one. */
export function tesPartOf(job: Job | undefined): TesJobPart | undefined {
  const tes = job?.spec.tes;
  return isObject(tes) ? (tes as unknown as TesJobPart) : undefined;
}

async function executorLogs(task: Task, doc: TesTaskBody, part: TesJobPart, files: TesFiles, full: boolean) {
  const logs = [];
  for (const [i, executor] of doc.executors.entries()) {
    const names = executorFiles(i);
    const rc = await files.read(task.id, names.rc, 64);
    if (rc === undefined) break; // it has not ended (or never ran): the executors after it have not run either
    // The script marks an executor's start and end by writing its .start and .end files (script.ts); a task run before
    // that wrote the seconds into them.
    const seconds = async (name: string) => {
      const text = (await files.read(task.id, name, 64))?.trim();
      if (text) return Number(text) > 0 ? rfc3339(Number(text)) : undefined;
      const ms = await files.modified(task.id, name);
      return ms === undefined ? undefined : rfc3339(ms / 1000);
    };
    const stream = async (path: string | undefined, own: string) => files.read(task.id, path === undefined ? own : jobRelativePath(path, part.roots), LOG_TAIL);
    logs.push({
      start_time: await seconds(names.start),
      end_time: await seconds(names.end),
      ...(full ? { stdout: (await stream(executor.stdout, names.out)) ?? '', stderr: (await stream(executor.stderr, names.err)) ?? '' } : {}),
      exit_code: Number.parseInt(rc.trim(), 10) || 0,
    });
  }
  return logs;
}

async function outputLogs(taskId: string, part: TesJobPart, files: TesFiles): Promise<TesOutputLog[]> {
  const listed = await files.read(taskId, TES_OUTPUTS_FILE, OUTPUTS_BYTES);
  if (listed !== undefined) return JSON.parse(listed) as TesOutputLog[];
  // A task stored before the worker listed its outputs: read from the data store.
  const out: TesOutputLog[] = [];
  for (const output of part.store) {
    if (!output.target) continue;
    if (output.type === 'FILE') {
      const size = await files.storedSize(output.target);
      if (size !== undefined) out.push({ url: output.url, path: output.path, size_bytes: String(size) });
      continue;
    }
    // A DIRECTORY is flattened into its files (TES: "Directory outputs are flattened into separate items").
    for (const item of await files.listStored(output.target)) {
      const target = { account: output.target.account, path: `${output.target.path}/${item.relative}` };
      out.push({ url: `gdflow:${target.path}`, path: `${output.path}/${item.relative}`, size_bytes: String(item.size) });
    }
  }
  return out;
}

function systemLogs(task: Task, job: Job | undefined, part: TesJobPart | undefined): string[] {
  const lines = [`task ${task.id} (${task.name}): ${task.status}: ${task.reason}`];
  if (job) {
    lines.push(`job ${job.id}: ${job.status}: ${job.reason}`);
    for (const a of job.attempts) lines.push(`attempt ${a.attempt}: ${a.outcome}${a.exitCode !== null ? ` (exit code ${a.exitCode})` : ''}: ${a.reason}`);
  }
  lines.push(...(part?.problems ?? []), ...(part?.warnings ?? []));
  return lines;
}

export async function tesTaskView(task: Task, job: Job | undefined, state: TesState, view: TesView, files: TesFiles): Promise<Record<string, unknown>> {
  if (view === 'MINIMAL') return { id: task.id, state };
  const doc = tesDocument(task);
  if (!doc) return { id: task.id, state };
  const full = view === 'FULL';
  const part = tesPartOf(job);
  const inputs = doc.inputs?.map((input) => (full ? input : Object.fromEntries(Object.entries(input).filter(([key]) => key !== 'content'))));
  const logs = [];
  if (job && part && (job.startedAt !== null || job.attempts.length > 0 || task.status === 'failed')) {
    logs.push({
      logs: await executorLogs(task, doc, part, files, full),
      metadata: {
        gdflow_task: task.id,
        gdflow_job: job.id,
        attempt: String(job.attempt),
        ...(job.imageDigest ? { image_digest: job.imageDigest } : {}),
        ...(job.cachedFrom ? { cached_from: job.cachedFrom } : {}),
      },
      start_time: rfc3339(job.startedAt),
      end_time: rfc3339(job.endedAt),
      outputs: task.status === 'succeeded' ? await outputLogs(task.id, part, files) : [],
      ...(full ? { system_logs: systemLogs(task, job, part) } : {}),
    });
  }
  return {
    id: task.id,
    state,
    ...(doc.name !== undefined ? { name: doc.name } : {}),
    ...(doc.description !== undefined ? { description: doc.description } : {}),
    ...(inputs ? { inputs } : {}),
    ...(doc.outputs ? { outputs: doc.outputs } : {}),
    ...(doc.resources ? { resources: doc.resources } : {}),
    executors: doc.executors,
    ...(doc.volumes ? { volumes: doc.volumes } : {}),
    tags: doc.tags ?? {},
    logs,
    creation_time: rfc3339(task.createdAt),
  };
}
