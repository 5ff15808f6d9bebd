import { createReadStream } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import type { Job, TaskStore } from '../store/store.js';
import type { Layout } from './layout.js';
import { handOverLinkedDirs, isLinkedJobDir } from './linked-job-dirs.js';
import { linkOrCopy } from './link-or-copy.js';

/** One of a job's two logs. */
export type LogStream = 'stdout' | 'stderr';

/** Which job: the log's place follows from its task and node. */
export interface LoggedJob {
  taskId: string;
  nodeId: string;
  /**
   * The earlier job a call-cache hit reuses: a hit decided at activation writes no log files of its own, its logs are
   * that job's (docs/tasks.md, "Call caching").
   */
  cachedFrom?: string | null;
}

/** What the logs of hits are looked up through: the jobs they reuse, and the jobs that reuse a task's jobs. */
export type LogSources = Pick<TaskStore, 'getJob' | 'jobsReusing'>;

/** How many hits of hits are followed to the job that wrote the log (a chain is at most as long as the reruns). */
const MAX_HOPS = 16;

/** A job's log as it was at one moment (a running job writes on): its size then, and any range of those bytes. */
export interface LogSnapshot {
  size: number;
  /** Bytes `start..end` (inclusive) of the snapshot. */
  read(start: number, end: number): Readable;
}

/**
 * Jobs' logs as the engine writes them, for the API to serve (GET /logs/<job>/) without knowing where they are kept.
 * A log that was never written reads as empty.
 */
export interface JobLogs {
  /** Whether the job has written any log yet. */
  exists(job: LoggedJob): Promise<boolean>;
  /** The job's log now: stdout then stderr, or the one stream asked for. */
  snapshot(job: LoggedJob, stream?: LogStream): Promise<LogSnapshot>;
}

/** A log file as it was when looked at. */
interface Part {
  file: string;
  size: number;
}

/** Stream `start..end` (inclusive) of the parts, one after the other. */
function readParts(parts: Part[], start: number, end: number): PassThrough {
  const out = new PassThrough();
  (async () => {
    let offset = 0;
    for (const part of parts) {
      const from = Math.max(start - offset, 0);
      const to = Math.min(end - offset, part.size - 1);
      offset += part.size;
      if (from > to) continue;
      await new Promise<void>((resolve, reject) => {
        const input = createReadStream(part.file, { start: from, end: to });
        input.on('error', reject);
        input.on('end', resolve);
        input.pipe(out, { end: false });
      });
    }
    out.end();
  })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

/**
 * The logs in the job directories of the data root (layout.ts: `<task>/<node>/stdout.log` and `stderr.log`). A job
 * without log files that reuses an earlier job (cached_from) has that job's logs, looked up through `sources` (without
 * it, every job's logs are its own files).
 */
export class FileJobLogs implements JobLogs {
  constructor(
    private readonly layout: Layout,
    private readonly sources?: LogSources,
  ) {}

  private files(job: LoggedJob, stream?: LogStream): string[] {
    return [
      ...(stream === undefined || stream === 'stdout' ? [this.layout.stdoutLog(job.taskId, job.nodeId)] : []),
      ...(stream === undefined || stream === 'stderr' ? [this.layout.stderrLog(job.taskId, job.nodeId)] : []),
    ];
  }

  /** Whether the job's own log files are there. */
  private async hasOwn(job: LoggedJob): Promise<boolean> {
    const found = await Promise.all(
      this.files(job).map((p) =>
        access(p).then(
          () => true,
          () => false,
        ),
      ),
    );
    return found.some(Boolean);
  }

  /** The job whose log files stand for this job's: its own, else (a hit) those of the job it reuses, hit by hit. */
  private async writer(job: LoggedJob): Promise<LoggedJob> {
    let at = job;
    for (let hop = 0; hop < MAX_HOPS && this.sources && at.cachedFrom && !(await this.hasOwn(at)); hop++) {
      const source: Job | undefined = await this.sources.getJob(at.cachedFrom);
      if (!source) break;
      at = source;
    }
    return at;
  }

  async exists(job: LoggedJob): Promise<boolean> {
    return this.hasOwn(await this.writer(job));
  }

  async snapshot(job: LoggedJob, stream?: LogStream): Promise<LogSnapshot> {
    const writer = await this.writer(job);
    // Sizes are taken once, so that what is read matches the size given even while the job writes on.
    const parts: Part[] = [];
    for (const file of this.files(writer, stream)) {
      const info = await stat(file).catch(() => undefined);
      if (info?.isFile()) parts.push({ file, size: info.size });
    }
    return { size: parts.reduce((sum, part) => sum + part.size, 0), read: (start, end) => readParts(parts, start, end) };
  }

  /**
   * Before a task's files go (a DELETE): the jobs of other tasks that read their logs from its jobs (hits decided at
   * activation, which have no log files of their own) get the files linked (copied across file systems) into their
   * own directories, so that their logs outlive the task they came from; then hits whose directories are links to its
   * jobs' (linked-job-dirs.ts) take those directories over, logs and outputs.
   */
  async handOver(taskId: string): Promise<void> {
    if (!this.sources) return;
    const linked: LoggedJob[] = [];
    for (const reader of await this.sources.jobsReusing(taskId)) {
      if (isLinkedJobDir(this.layout, reader)) {
        linked.push(reader);
        continue;
      }
      if (await this.hasOwn(reader)) continue;
      const writer = await this.writer(reader);
      if (writer === reader) continue;
      await mkdir(this.layout.jobDir(reader.taskId, reader.nodeId), { recursive: true });
      for (const log of ['stdoutLog', 'stderrLog'] as const) {
        // Skipped when missing: a job that wrote no such log.
        await linkOrCopy(this.layout[log](writer.taskId, writer.nodeId), this.layout[log](reader.taskId, reader.nodeId), {
          existingTarget: 'copy-over',
          missingSource: 'skip',
        });
      }
    }
    // Last: the directories move, and the logs linked above were read from them.
    handOverLinkedDirs(this.layout, taskId, linked);
  }
}
