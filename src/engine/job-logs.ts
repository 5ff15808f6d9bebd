import { createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import type { Layout } from './layout.js';

/** One of a job's two logs. */
export type LogStream = 'stdout' | 'stderr';

/** Which job: the log's place follows from its task and node. */
export interface LoggedJob {
  taskId: string;
  nodeId: string;
}

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

/** The logs in the job directories of the data root (layout.ts: `<task>/<node>/stdout.log` and `stderr.log`). */
export class FileJobLogs implements JobLogs {
  constructor(private readonly layout: Layout) {}

  private files(job: LoggedJob, stream?: LogStream): string[] {
    return [
      ...(stream === undefined || stream === 'stdout' ? [this.layout.stdoutLog(job.taskId, job.nodeId)] : []),
      ...(stream === undefined || stream === 'stderr' ? [this.layout.stderrLog(job.taskId, job.nodeId)] : []),
    ];
  }

  async exists(job: LoggedJob): Promise<boolean> {
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

  async snapshot(job: LoggedJob, stream?: LogStream): Promise<LogSnapshot> {
    // Sizes are taken once, so that what is read matches the size given even while the job writes on.
    const parts: Part[] = [];
    for (const file of this.files(job, stream)) {
      const info = await stat(file).catch(() => undefined);
      if (info?.isFile()) parts.push({ file, size: info.size });
    }
    return { size: parts.reduce((sum, part) => sum + part.size, 0), read: (start, end) => readParts(parts, start, end) };
  }
}
