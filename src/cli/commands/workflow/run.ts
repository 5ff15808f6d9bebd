import type { Command } from 'commander';
import type { ActivateWorkflowRequest } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { readDocument, runDocument, secondsOption, versionOption } from '../../documents.js';
import { CliError, EXIT } from '../../exit.js';
import { followTask, reportEnd } from '../../follow-task.js';
import { note, printJson, say } from '../../output.js';

interface Flags extends ClientFlags {
  params?: string;
  version?: string;
  name?: string;
  owner?: string;
  wait?: boolean;
  interval: string;
}

/** `gdflow workflow run`: ActivateWorkflow with parameters from a file, optionally following the task. */
export function registerWorkflowRun(workflow: Command): void {
  clientCommand(workflow.command('run <name>').description('start a task of a workflow (ActivateWorkflow) with run parameters from a file'))
    .option('-p, --params <file>', 'run parameters (YAML or JSON, as getparam prints them; - for stdin); default: the saved template')
    .option('--version <n>', 'workflow version (default: the latest runnable one)')
    .option('--name <task_name>', "task name (default: the file's name, else generated)")
    .option('--owner <account>', "run a workflow of another account (e.g. 'public')")
    .option('--wait', 'follow the task to its end (exit 1 if it fails)')
    .option('--interval <seconds>', 'poll interval with --wait', '1')
    .option('--json', 'print the task (the final task with --wait) as JSON')
    .action(async (name: string, flags: Flags) => {
      const given = versionOption(flags.version);
      const interval = secondsOption(flags.interval, '--interval');
      const client = clientFor(flags);
      const doc = flags.params ? runDocument(readDocument(flags.params), flags.params) : { parameters: (await client.getExecutableWorkflow(name, given)).parameter };
      const version = given ?? doc.workflow_version;
      const taskName = flags.name ?? doc.task_name;
      const owner = flags.owner ?? doc.workflow_owner;
      const request: ActivateWorkflowRequest = {
        workflow_name: name,
        parameters: doc.parameters,
        ...(version !== undefined ? { workflow_version: version } : {}),
        ...(taskName !== undefined ? { task_name: taskName } : {}),
        ...(owner !== undefined ? { workflow_owner: owner } : {}),
      };
      const started = await client.activateWorkflow(request);
      if (!flags.wait) {
        if (flags.json) return printJson(started);
        return say(`task ${started.task_name} started: ${started.task_id}`);
      }
      note(`task ${started.task_name} started: ${started.task_id}`);
      const { task, jobs } = await followTask(client, started.task_id, { intervalMs: interval * 1000, quiet: Boolean(flags.json) });
      if (flags.json) printJson(task);
      else for (const line of reportEnd(task, jobs)) say(line);
      if (task.status !== 'succeeded') throw new CliError(`task ${task.task_name} ${task.status}`, EXIT.failed);
    });
}
