import { StringDecoder } from 'node:string_decoder';
import type { Client } from '../../../client/client.js';
import { GdApiError } from '../../../client/errors.js';
import type { Job } from '../../../client/types.js';
import { stillRunning } from '../../follow-task.js';
import { interruptible } from '../../interrupt.js';
import { missingTask } from '../../not-found.js';
import { jobsOf } from './shared.js';

/**
 * `gdflow task logs --follow`: a running job's log as it is written, until the job ends (or, for a whole task, every
 * job's until the task's last job ends). Each look reads only what was written since the last one, with a Range
 * request on the job's log link (server/routes/logs.ts), so a long log costs its own size once, not once per look;
 * one job list per look tells which jobs run and which have ended.
 */

export type LogStream = 'stdout' | 'stderr';

const ENDED = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One stream of one job's log, as far as it has been read: whole lines are printed, an unfinished one waits. */
class LogCursor {
  offset = 0;
  private decoder = new StringDecoder('utf8');
  private partial = '';

  constructor(readonly stream: LogStream) {}

  /** The complete lines (each with its newline) that `bytes` finish. */
  take(bytes: Buffer): string[] {
    this.offset += bytes.length;
    const text = this.partial + this.decoder.write(bytes);
    const end = text.lastIndexOf('\n') + 1;
    this.partial = text.slice(end);
    return end === 0 ? [] : text.slice(0, end).split(/(?<=\n)/);
  }

  /** The unfinished last line, once the job has ended without a final newline. */
  flush(): string[] {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    return rest === '' ? [] : [`${rest}\n`];
  }

  /** The log was rewritten from its start (the job's next attempt). */
  restart(): void {
    this.offset = 0;
    this.decoder = new StringDecoder('utf8');
    this.partial = '';
  }
}

interface FollowedJob {
  nodeId: string;
  url: string | undefined;
  cursors: LogCursor[];
  done: boolean;
}

export interface LogFollowOptions {
  /** Follow only this job (a job id); default: every job of the task. */
  jobId?: string;
  streams: LogStream[];
  intervalMs: number;
  /** `--profile`/`--project` for the commands suggested after Ctrl-C. */
  context: string;
  write: (text: string) => void;
}

/** Follow the logs until the followed jobs have ended; returns those jobs as last seen. */
export async function followLogs(client: Client, taskId: string, options: LogFollowOptions): Promise<Job[]> {
  const followed = new Map<string, FollowedJob>();
  let running = true;
  let taskName: string | undefined;

  const read = async (job: Job, entry: FollowedJob, cursor: LogCursor, prefix: string): Promise<void> => {
    const fetchPart = () => client.readJobLog(entry.url!, { offset: cursor.offset, stream: cursor.stream });
    let part = await fetchPart().catch(async (error: unknown) => {
      // Log links expire (--log-url-ttl): a long follow asks for a fresh one.
      if (!(error instanceof GdApiError && error.status === 403)) throw error;
      entry.url = (await client.getJob(taskId, job.job_id)).Log_downloadURL || undefined;
      return fetchPart();
    });
    if (part.size < cursor.offset) {
      cursor.restart();
      options.write(`${prefix}--- ${cursor.stream} starts again: attempt ${job.attempt} ---\n`);
      part = await fetchPart();
    }
    for (const line of cursor.take(part.bytes)) options.write(prefix + line);
  };

  const look = async (): Promise<boolean> => {
    // The states first: a job seen ended here has written all of its log before the reads below.
    const jobs = (await jobsOf(client, taskId)).filter((job) => options.jobId === undefined || job.job_id === options.jobId);
    const width = Math.max(...jobs.map((job) => job.node_id.length));
    for (const job of jobs) {
      let entry = followed.get(job.job_id);
      if (!entry) {
        entry = { nodeId: job.node_id, url: undefined, cursors: options.streams.map((s) => new LogCursor(s)), done: false };
        followed.set(job.job_id, entry);
      }
      if (entry.done) continue;
      const ended = ENDED.has(job.status);
      // A job has no log before it runs: a waiting or queued one costs nothing but its line in the job list.
      if (!ended && job.status !== 'running') continue;
      entry.url ??= (await client.getJob(taskId, job.job_id)).Log_downloadURL || undefined;
      if (entry.url !== undefined) {
        const prefix = options.jobId === undefined ? `${job.node_id.padEnd(width)} | ` : '';
        for (const cursor of entry.cursors) {
          await read(job, entry, cursor, prefix);
          // A job seen ended wrote its last line: one without a newline is not waited for.
          if (ended) for (const line of cursor.flush()) options.write(prefix + line);
        }
      }
      entry.done = ended;
    }
    running = jobs.some((job) => !ENDED.has(job.status));
    return jobs.length > 0 && !running;
  };

  const loop = async (): Promise<Job[]> => {
    taskName = (await client.getTask(taskId).catch(missingTask(client, taskId))).task_name;
    while (!(await look())) await sleep(options.intervalMs);
    return (await jobsOf(client, taskId)).filter((job) => options.jobId === undefined || job.job_id === options.jobId);
  };
  return interruptible(loop(), () => (running ? stillRunning(taskId, taskName, options.context) : 'interrupted'));
}
