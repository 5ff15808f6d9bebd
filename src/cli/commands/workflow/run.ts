import type { Command } from 'commander';
import type { ActivateWorkflowRequest, RunParameters } from '../../../client/types.js';
import { runTarget, templateOrigin } from '../../batch/origin.js';
import { clientCommand, clientFor, contextArgs, type ClientFlags } from '../../context.js';
import { parseDocument, readText, runDocument, secondsOption, versionOption } from '../../documents.js';
import { fillRun, hasRunOptions, repeatable, type RunOptions } from '../../fill-run.js';
import { afterStart } from '../../follow-task.js';
import { missingWorkflow } from '../../not-found.js';
import { ownerClient, parseOwner, withOwner } from '../../owner.js';

interface Flags extends ClientFlags, RunOptions {
  params?: string;
  version?: string;
  name?: string;
  owner?: string;
  wait?: boolean;
  interval: string;
}

/** `gdflow workflow run`: ActivateWorkflow with parameters from a file or options, optionally following the task. */
export function registerWorkflowRun(workflow: Command): void {
  const description = 'start a task of a workflow (ActivateWorkflow) with run parameters from a file and/or --input/--output/--param';
  const command = clientCommand(workflow.command('run <name>').description(description))
    .option('-p, --params <file>', 'run parameters (YAML or JSON, as getparam prints them; - for stdin); default: the saved template')
    .option('-i, --input <node=data>', "data of a loaddata node, e.g. --input load_reads=/reads/s1.fq (repeat for each item; replaces the node's)", repeatable)
    .option('--output <node=data>', 'what a storedata node stores as, e.g. --output save=/results/s1.bam (default: /home/<user>/<task>/...)', repeatable)
    .option('--param <node.param=value>', 'a tool parameter, e.g. --param align.threads=8 (typed as the tool declares it)', repeatable)
    .option('--version <n>', 'workflow version (default: the latest runnable one)')
    .option('--name <task_name>', "task name (default: the file's name, else generated)");
  withOwner(command, 'run a workflow')
    .option('--wait', 'follow the task to its end (exit 1 if it fails; Ctrl-C stops following, exit 130, the task keeps running)')
    .option('--interval <seconds>', 'poll interval with --wait', '1')
    .option('--json', 'print the task (the final task with --wait) as JSON')
    .addHelpText(
      'after',
      `
Without -p the run starts from the workflow's run template (gdflow workflow getparam NAME); the
options fill it in, so that a run needs no template file:
  gdflow workflow run align --input load_reads=/reads/s1_1.fq --input load_reads=/reads/s1_2.fq \\
      --param bwa.threads=4 --output save_bam=/results/s1.bam --wait
An unknown node or parameter is refused (exit 2) naming the nearest one.`,
    )
    .action(async (name: string, flags: Flags) => {
      const interval = secondsOption(flags.interval, '--interval');
      const text = flags.params === undefined ? undefined : readText(flags.params);
      const doc = text === undefined ? undefined : runDocument(parseDocument(text, flags.params!), flags.params!);
      const origin = text === undefined ? undefined : templateOrigin(text);
      const { version, owner } = runTarget(name, { version: versionOption(flags.version), owner: flags.owner }, doc ?? {}, origin);
      if (owner !== undefined) parseOwner(owner);
      const client = clientFor(flags);
      const source = await ownerClient(client, owner);
      // The workflow's own template: the run's parameters without -p, and what the options are checked against.
      const template = async () => (await source.getExecutableWorkflow(name, version).catch(missingWorkflow(source, name))).parameter;
      const reference = doc && !hasRunOptions(flags) ? undefined : await template();
      let parameters: RunParameters = doc?.parameters ?? reference!;
      if (hasRunOptions(flags)) parameters = fillRun(parameters, reference!, flags, await client.accountName());
      const taskName = flags.name ?? doc?.task_name;
      const request: ActivateWorkflowRequest = {
        workflow_name: name,
        parameters,
        ...(version !== undefined ? { workflow_version: version } : {}),
        ...(taskName !== undefined ? { task_name: taskName } : {}),
        ...(owner !== undefined ? { workflow_owner: owner } : {}),
      };
      const started = await client.activateWorkflow(request).catch(missingWorkflow(source, name));
      const follow = { wait: Boolean(flags.wait), json: Boolean(flags.json), intervalMs: interval * 1000, context: contextArgs(flags) };
      await afterStart(client, started, `task ${started.task_name} started: ${started.task_id}`, follow);
    });
}
