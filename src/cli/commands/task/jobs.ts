import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { formatDuration, printJson, printTable, runTime } from '../../output.js';
import { jobsOf } from './shared.js';

/** `gdflow task jobs`: the jobs of a task in plan order. */
export function registerTaskJobs(task: Command): void {
  clientCommand(task.command('jobs <task_id>').description('list the jobs of a task (one per workflow node)'), { json: true }).action(
    async (taskId: string, flags: ClientFlags) => {
      const jobs = await jobsOf(clientFor(flags), taskId);
      if (flags.json) return printJson(jobs);
      printTable(
        jobs,
        [
          { header: 'node', value: (j) => j.node_id },
          { header: 'tool', value: (j) => j.name },
          { header: 'status', value: (j) => j.status },
          { header: 'exit', value: (j) => j.exit_code, right: true },
          { header: 'attempt', value: (j) => j.attempt, right: true },
          { header: 'duration', value: (j) => formatDuration(runTime(j)), right: true },
          // What a job that has not started waits for says more than its reason ("waiting for 2 CPUs (1 free)").
          { header: 'reason', value: (j) => j.waiting_for ?? j.reason },
          { header: 'job id', value: (j) => j.job_id },
        ],
        'no jobs',
      );
    },
  );
}
