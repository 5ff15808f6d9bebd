import type { Client } from '../../client/client.js';
import { isTerminalTask, type CwlRun, type Job } from '../../client/types.js';
import { CliError, EXIT } from '../exit.js';
import { jobFailure } from '../follow-task.js';
import { note } from '../output.js';

/**
 * Following a CWL run to its end, as a cwl-runner does: its progress on stderr (a line whenever the task's state,
 * its jobs done or the jobs running change; nothing with `quiet`), and Ctrl-C stops the run's task (a second one
 * leaves at once). The answer is the run's last state; a run that did not succeed is reported with the reasons of
 * its failed jobs and the end of their stderr.
 */

export interface FollowOptions {
  quiet: boolean;
  /**
   * Longest wait between two looks at the run's state (the first ones come sooner: many CWL runs take well under a
   * second). A look is one small request; the progress line's look at the jobs is made at most once a second.
   */
  maxIntervalMs?: number;
}

/** How often the progress line looks at the task's jobs (a list of every job: hundreds for a scatter). */
const PROGRESS_INTERVAL_MS = 1000;

const clock = (): string => new Date().toTimeString().slice(0, 8);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function followCwlRun(client: Client, taskId: string, options: FollowOptions): Promise<CwlRun> {
  let stopping = false;
  let interrupt: (() => void) | undefined;
  const interrupted = new Promise<never>((_resolve, reject) => {
    interrupt = () => {
      if (stopping) return reject(new CliError(`interrupted again: task ${taskId} was asked to stop`, EXIT.interrupted));
      stopping = true;
      note(`stopping task ${taskId} (Ctrl-C again to leave without waiting)`);
      client.stopTask(taskId).catch((error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
    };
  });
  interrupted.catch(() => undefined);
  process.on('SIGINT', interrupt!);
  try {
    const run = await Promise.race([poll(client, taskId, options), interrupted]);
    if (stopping) throw new CliError(`interrupted: task ${run.task_name} (${taskId}) ${run.status}`, EXIT.interrupted);
    return run;
  } finally {
    process.removeListener('SIGINT', interrupt!);
  }
}

async function poll(client: Client, taskId: string, options: FollowOptions): Promise<CwlRun> {
  let interval = 50;
  let last = '';
  let lookedAt = 0;
  for (;;) {
    const run = await client.getCwlRun(taskId);
    const ended = isTerminalTask(run.status);
    if (!options.quiet && (ended || Date.now() - lookedAt >= PROGRESS_INTERVAL_MS)) {
      lookedAt = Date.now();
      const line = await progressLine(client, run);
      if (line !== last) note(`${clock()} ${run.task_name}: ${line}`);
      last = line;
    }
    if (ended) return run;
    await sleep(interval);
    interval = Math.min(Math.round(interval * 1.5), options.maxIntervalMs ?? 250);
  }
}

async function progressLine(client: Client, run: CwlRun): Promise<string> {
  const task = await client.getTask(run.task_id);
  const running = task.status === 'running' ? (await client.listJobs(run.task_id)).jobs.filter((j) => j.status === 'running').map((j) => j.node_id) : [];
  const { done, total, failed } = task.progress;
  return `${run.status} ${done}/${total} jobs done${failed ? `, ${failed} failed` : ''}${running.length ? `; running: ${running.join(', ')}` : ''}`;
}

/** Lines saying why a run did not succeed: its reason, each failed job's, and the last lines of their stderr. */
export async function failureReport(client: Client, run: CwlRun, tailLines = 20): Promise<string[]> {
  const lines = [`task ${run.task_name} (${run.task_id}) ${run.status}${run.reason ? `: ${run.reason}` : ''}`];
  const jobs: Job[] = await client.listJobs(run.task_id).then(
    (r) => r.jobs,
    () => [],
  );
  for (const job of jobs.filter((j) => j.status === 'failed').slice(0, 5)) {
    lines.push(`  job ${job.node_id} ${jobFailure(job)}`);
    const log = await client.getJobLog(run.task_id, job.job_id, 'stderr').catch(() => '');
    const tail = log
      .trimEnd()
      .split('\n')
      .slice(-tailLines)
      .filter((l) => l !== '');
    if (tail.length > 0) lines.push(`  its stderr, last ${tail.length} lines:`, ...tail.map((l) => `    ${l}`));
  }
  return lines;
}
