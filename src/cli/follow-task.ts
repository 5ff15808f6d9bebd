import { TaskWaitTimeout, type Client } from '../client/client.js';
import type { ActivatedTask, Job, Task } from '../client/types.js';
import { CliError, EXIT } from './exit.js';
import { interruptible } from './interrupt.js';
import { missingTask } from './not-found.js';
import { formatDuration, note, printJson, runTime, say } from './output.js';
import { progressBar, progressEnabled } from './progress.js';

export interface FollowOptions {
  intervalMs: number;
  timeoutMs?: number;
  /** Print nothing while waiting (for --json). */
  quiet?: boolean;
  /** `--profile`/`--project` to repeat in the commands suggested after Ctrl-C (context.ts contextArgs). */
  context?: string;
}

/** What Ctrl-C while following says: the task goes on, and the commands to follow, read or stop it. */
export function stillRunning(taskId: string, taskName: string | undefined, context = ''): string {
  return [
    `interrupted: task ${taskName ? `${taskName} (${taskId})` : taskId} keeps running on the server`,
    `  follow it: gdflow task wait ${taskId}${context}`,
    `  its logs:  gdflow task logs ${taskId} --follow${context}`,
    `  stop it:   gdflow task stop ${taskId}${context}`,
  ].join('\n');
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
  let name: string | undefined;
  const timeout = options.timeoutMs === undefined ? undefined : { timeoutMs: options.timeoutMs };
  try {
    const waiting = client.waitForTask(taskId, {
      intervalMs: options.intervalMs,
      withJobs: true,
      ...timeout,
      onUpdate: (task, seen) => {
        name = task.task_name;
        jobs = seen ?? [];
        const running = current(jobs).join(', ') || '-';
        if (live) {
          bar ??= progressBar(task.progress.total, `${task.task_name} [{bar}] {value}/{total} nodes | {status} | running: {running}`, {
            enabled: true,
            payload: { status: task.status, running },
          });
          bar.setTotal(task.progress.total);
          bar.update(task.progress.done, { status: task.status, running });
        } else if (!options.quiet) {
          const line = `${task.status} ${task.progress.done}/${task.progress.total} nodes done${task.progress.failed ? `, ${task.progress.failed} failed` : ''}; running: ${running}`;
          if (line !== last) note(`${clock()} ${task.task_name}: ${line}`);
          last = line;
        }
      },
    });
    // Ctrl-C ends the wait, not the task; the bar is stopped below, on the way out.
    const task = await interruptible(waiting, () => stillRunning(taskId, name, options.context));
    return { task, jobs };
  } catch (error) {
    if (error instanceof TaskWaitTimeout) throw new CliError(`gave up waiting: ${error.message}`, EXIT.failed);
    return missingTask(client, taskId)(error);
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
  const lines = [
    `task ${task.task_name} (${task.task_id}) ${task.status} after ${formatDuration(runTime(task))}: ${task.progress.done}/${task.progress.total} nodes done`,
  ];
  if (task.status !== 'succeeded') {
    if (task.reason) lines.push(`  reason: ${task.reason}`);
    for (const job of jobs.filter((j) => j.status === 'failed')) {
      lines.push(`  job ${job.node_id} (${job.name}) ${jobFailure(job)}`);
      lines.push(`    see: gdflow task logs ${task.task_id} ${job.node_id}`);
    }
  }
  return lines;
}

/** The end of a followed task: `json` printed when given, else the closing lines; exit 1 unless it succeeded. */
export function endOfFollow(task: Task, jobs: Job[], json?: unknown): void {
  if (json !== undefined) printJson(json);
  else for (const line of reportEnd(task, jobs)) say(line);
  if (task.status !== 'succeeded') throw new CliError(`task ${task.task_name} ${task.status}`, EXIT.failed);
}

export interface StartedOptions {
  /** Follow the task to its end (exit 1 unless it succeeds). */
  wait?: boolean;
  json?: boolean;
  intervalMs: number;
  context?: string;
}

/**
 * A task just started (workflow run, task rerun): `line` and the task as JSON or text, or with `wait` the task
 * followed to its end.
 */
export async function afterStart(client: Client, started: ActivatedTask, line: string, options: StartedOptions): Promise<void> {
  if (!options.wait) return options.json ? printJson(started) : say(line);
  note(line);
  const follow = { intervalMs: options.intervalMs, quiet: Boolean(options.json), ...(options.context ? { context: options.context } : {}) };
  const { task, jobs } = await followTask(client, started.task_id, follow);
  endOfFollow(task, jobs, options.json ? task : undefined);
}
