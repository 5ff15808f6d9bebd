import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Client } from '../../../client/client.js';
import type { WdlRun } from '../../../client/types.js';
import { isTerminalTask } from '../../../client/types.js';
import { ConfigError } from '../../../config/config.js';
import { stringifyExactJson } from '../../../contract/exact-json.js';
import { WdlError } from '../../../domain/wdl/errors.js';
import { inputDeclarations } from '../../../domain/wdl/index.js';
import { clientCommand, clientFor, settingsFor, type ClientFlags } from '../../context.js';
import { startEmbeddedServer, type EmbeddedServer } from '../../cwl/embedded-server.js';
import { failureReport } from '../../cwl/follow-run.js';
import { CliError, EXIT, usageError } from '../../exit.js';
import { formatBytes, note } from '../../output.js';
import { progressEnabled } from '../../progress.js';
import { WdlInputUploads } from '../../wdl/input-uploads.js';
import { readLocalWdl } from '../../wdl/local-documents.js';
import { localizeWdlOutputs } from '../../wdl/output-downloads.js';

/** `gdflow wdl run`: a WDL document run as miniwdl runs one (docs/wdl.md, "gdflow wdl run"). */

interface RunFlags extends ClientFlags {
  task?: string;
  input?: string;
  outdir?: string;
  quiet?: boolean;
  executor?: string;
}

const HELP = `
Runs a WDL 1.0 or 1.1 workflow (or, with --task, one task of the document) and prints its outputs as miniwdl does:
{"outputs": {"<workflow>.<output>": value, ...}} on stdout, File and Directory values as local paths of what was
downloaded into --outdir (a Directory with its tree); the progress goes to stderr.

The document and the files it imports (relative paths) are read and checked here: an error names the file, line and
column. The inputs JSON (-i) has Cromwell's keys ("wf.x", "wf.call.y"); its File values are local paths, relative to
the inputs file, uploaded to the data store under /wdl/inputs/<run>/ (the files of one directory together), or
data-store paths ('<account>:/dir/x.fq'). The run is a task like any other on the server the CLI is configured for
(GDFLOW_ENDPOINT and keys, or gdflow config set: gdflow task ls, the console, logs, stop, call caching), its outputs
stored under /wdl/runs/<run>/. With no server configured it starts one of its own for the run (on 127.0.0.1, on a
temporary data root removed at the end); GDFLOW_EXECUTOR or --executor chooses how its jobs run (bwrap by default;
podman or docker run each task in its runtime's docker image).

Ctrl-C stops the run's task. Exit status: 0 success; 1 an invalid document or inputs, or a failed run; 2 a bad
command line.

Examples:
  gdflow wdl run -i inputs.json --outdir results align.wdl
  gdflow wdl run --task greet -i greet.json hello.wdl
  gdflow wdl run --executor podman -i inputs.json align.wdl`;

export function registerWdlRun(wdl: Command): void {
  clientCommand(wdl.command('run <document>').description('run a WDL workflow (or one task with --task) with an inputs JSON; print its outputs'))
    .option('--task <name>', 'run this task of the document instead of its workflow')
    .option('-i, --input <file>', 'the inputs JSON ("wf.x": value; File values local paths or data-store paths)')
    .option('--outdir <dir>', 'where the output files and directories are written (default: the current directory)')
    .option('--quiet', 'no progress on stderr, only warnings and errors')
    .option('--executor <kind>', "with no server configured: how the run's own server runs jobs (bwrap, host, podman, docker) [GDFLOW_EXECUTOR]")
    .addHelpText('after', HELP)
    .action(async (document: string, flags: RunFlags) => {
      try {
        await runWdl(document, flags);
      } catch (error) {
        throw asRunFailure(error);
      }
    });
}

async function runWdl(document: string, flags: RunFlags): Promise<void> {
  const quiet = flags.quiet === true;
  const local = await readLocalWdl(document);
  const inputs = flags.input === undefined ? {} : await readInputs(flags.input);
  const declarations = inputDeclarations(local.bundle, flags.task);
  // The inputs' local files are found (or refused) before any server is started or reached.
  const id = randomUUID();
  const uploads = new WdlInputUploads(`/wdl/inputs/${id}`, flags.input === undefined ? process.cwd() : dirname(resolve(flags.input)), local.bundle.structs);
  const job = uploads.rewrite(inputs, declarations);
  const configured = Boolean(settingsFor(flags).values.endpoint);
  if (configured && flags.executor !== undefined)
    throw usageError('--executor is for the server gdflow wdl run starts when no server is configured; the configured server runs jobs its own way');
  const server: EmbeddedServer | undefined = configured
    ? undefined
    : await startEmbeddedServer(flags.executor === undefined ? {} : { executor: flags.executor });
  try {
    const client = server?.client ?? clientFor(flags);
    if (!quiet) note(server ? `gdflow server for this run on ${server.url} (data removed at the end)` : `gdflow server ${client.transport.endpoint}`);
    const sent = await uploads.upload(client, !quiet && progressEnabled());
    if (!quiet && sent.files > 0) note(`inputs: ${sent.files} files uploaded (${formatBytes(sent.bytes)})`);
    const outputDir = `/wdl/runs/${id}/`;
    const started = await client.runWdl({
      source: local.sources.main,
      source_name: local.sources.mainName ?? 'main.wdl',
      files: { ...local.sources.files },
      inputs: job,
      output_dir: outputDir,
      ...(flags.task !== undefined ? { task: flags.task } : {}),
    });
    if (!quiet) note(`task ${started.task_name} (${started.task_id}) started`);
    const run = await follow(client, started.task_id, quiet);
    if (run.status !== 'succeeded') {
      for (const line of await failureReport(client, { ...run, task_name: started.task_name })) note(line);
      throw new CliError(`the run ${run.status}`, EXIT.failed);
    }
    const outputs = await localizeWdlOutputs(client, run.outputs ?? {}, outputDir, resolve(flags.outdir ?? '.'), !quiet && progressEnabled());
    process.stdout.write(`${stringifyExactJson({ outputs }, 4)}\n`);
  } finally {
    await server?.close();
  }
}

async function readInputs(file: string): Promise<Record<string, unknown>> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw usageError(`cannot read the inputs ${file}: ${error.code ?? error.message}`);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the inputs ${file} are not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError(`the inputs ${file} must be a JSON object of "workflow.input": value`);
  return value as Record<string, unknown>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The run followed to its end, as `gdflow cwl run` follows one (sooner looks first: many runs take well under a
 * second); Ctrl-C stops its task.
 */
async function follow(client: Client, taskId: string, quiet: boolean): Promise<WdlRun> {
  let stopping = false;
  const interrupt = (): void => {
    if (stopping) process.exit(EXIT.interrupted);
    stopping = true;
    note(`stopping task ${taskId} (Ctrl-C again to leave without waiting)`);
    client.stopTask(taskId).catch((error: unknown) => note(`could not stop task ${taskId}: ${String(error)}`));
  };
  process.on('SIGINT', interrupt);
  try {
    let last = '';
    for (let interval = 100; ; interval = Math.min(Math.round(interval * 1.5), 1000)) {
      const run = await client.getWdlRun(taskId);
      if (!quiet && run.status !== last) note(`${new Date().toTimeString().slice(0, 8)} ${run.status}`);
      last = run.status;
      if (isTerminalTask(run.status)) {
        if (stopping) throw new CliError(`interrupted: task ${taskId} ${run.status}`, EXIT.interrupted);
        return run;
      }
      await sleep(interval);
    }
  } finally {
    process.removeListener('SIGINT', interrupt);
  }
}

/** A document or inputs in error, a refused run or a failed one: 1; a bad command line or setting: 2. */
function asRunFailure(error: unknown): unknown {
  if (error instanceof ConfigError) return usageError(error.message);
  if (error instanceof WdlError) return new CliError(error.message, EXIT.failed);
  if (error instanceof CliError) return error.exitCode === EXIT.unreachable ? new CliError(error.message, EXIT.failed) : error;
  return new CliError(error instanceof Error ? error.message : String(error), EXIT.failed);
}
