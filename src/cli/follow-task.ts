import { TaskWaitTimeout, type Client } from '../client/client.js';
import type { Job, Task } from '../client/types.js';
import { CliError, EXIT } from './exit.js';
import { formatDuration, note, runTime } from './output.js';
import { progressBar, progressEnabled } from './progress.js';

export interface FollowOptions {
  intervalMs: number;
  timeoutMs?: number;
  /** Print nothing while waiting (for --json). */
  quiet?: boolean;
}

const clock = () => new Date().toTimeString().slice(0, 8);
const current = (jobs: Job[]) => jobs.filter((j) => j.status === 'running').map((j) => j.node_id);

/**
 * Follow a task to its end, showing nodes done / total and the jobs running now: a live bar on a
 * terminal, otherwise one line per change. Returns the last state and the jobs.
 */
export async function followTask(client: Client, taskId: string, options: FollowOptions): Promise<{ task: Task; jobs: Job[] }> {
  const live = !options.quiet && progressEnabled();
  let bar: ReturnType<typeof progressBar> | undefined;
  let last = '';
  let jobs: Job[] = [];
  const timeout = options.timeoutMs === undefined ? undefined : { timeoutMs: options.timeoutMs };
  try {
    const task = await client.waitForTask(taskId, {
      intervalMs: options.intervalMs,
      withJobs: true,
      ...timeout,
      onUpdate: (task, seen) => {
        jobs = seen ?? [];
        const running = current(jobs).join(', ') || '-';
        if (live) {
          bar ??= progressBar(task.progress.total, `${task.task_name} [{bar}] {value}/{total} nodes | {status} | running: {running}`, { enabled: true, payload: { status: task.status, running } });
          bar.setTotal(task.progress.total);
          bar.update(task.progress.done, { status: task.status, running });
        } else if (!options.quiet) {
          const line = `${task.status} ${task.progress.done}/${task.progress.total} nodes done${task.progress.failed ? `, ${task.progress.failed} failed` : ''}; running: ${running}`;
          if (line !== last) note(`${clock()} ${task.task_name}: ${line}`);
          last = line;
        }
      },
    });
    return { task, jobs };
  } catch (error) {
    if (error instanceof TaskWaitTimeout) throw new CliError(`gave up waiting: ${error.message}`, EXIT.failed);
    throw error;
  } finally {
    bar?.stop();
  }
}

/** Why a job failed, saying its exit code once: the executors' reasons often name it already ("exit code 1"). */
export function jobFailure(job: Pick<Job, 'exit_code' | 'reason'>): string {
  const code = job.exit_code === null ? '' : ` with exit code ${job.exit_code}`;
  if (!job.reason) return `failed${code}`;
  if (code && job.reason.includes(`exit code ${job.exit_code}`)) return `failed: ${job.reason}`;
  return `failed${code}: ${job.reason}`;
}

/** The closing lines of a followed task: how it ended and, when it failed, which jobs and why. */
export function reportEnd(task: Task, jobs: Job[]): string[] {
  const lines = [`task ${task.task_name} (${task.task_id}) ${task.status} after ${formatDuration(runTime(task))}: ${task.progress.done}/${task.progress.total} nodes done`];
  if (task.status !== 'succeeded') {
    if (task.reason) lines.push(`  reason: ${task.reason}`);
    for (const job of jobs.filter((j) => j.status === 'failed')) {
      lines.push(`  job ${job.node_id} (${job.name}) ${jobFailure(job)}`);
      lines.push(`    see: gdflow task logs ${task.task_id} ${job.node_id}`);
    }
  }
  return lines;
}
