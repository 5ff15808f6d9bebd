import type { Command } from 'commander';
import { registerTaskCmd } from './cmd.js';
import { registerTaskExplain, registerTaskRerun } from './cache.js';
import { registerTaskDelete, registerTaskStop } from './control.js';
import { registerTaskEvents } from './events.js';
import { registerTaskGet } from './get.js';
import { registerTaskJobs } from './jobs.js';
import { registerTaskLogs } from './logs.js';
import { registerTaskLs } from './ls.js';
import { registerTaskOutputs } from './outputs.js';
import { registerTaskWait } from './wait.js';

/** `gdflow task ...`: runs of workflows and their jobs. */
export function registerTask(program: Command): void {
  const task = program
    .command('task')
    .description('follow and control tasks (runs of workflows) and their jobs')
    .addHelpText(
      'after',
      `
Task states: scheduled, queued, running, stopping, then succeeded, failed or stopped.
Job states:  waiting, queued, running, then succeeded, failed, skipped (a CWL step whose condition is false) or cancelled.
A JOB argument is a job id or the node id of the job in its workflow.`,
    );
  registerTaskLs(task);
  registerTaskGet(task);
  registerTaskStop(task);
  registerTaskDelete(task);
  registerTaskJobs(task);
  registerTaskLogs(task);
  registerTaskCmd(task);
  registerTaskEvents(task);
  registerTaskOutputs(task);
  registerTaskWait(task);
  registerTaskExplain(task);
  registerTaskRerun(task);
}
