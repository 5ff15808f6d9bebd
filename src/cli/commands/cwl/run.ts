import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Client } from '../../../client/client.js';
import { GdApiError } from '../../../client/errors.js';
import { ConfigError } from '../../../config/config.js';
import { startEmbeddedServer, type EmbeddedServer } from '../../cwl/embedded-server.js';
import { failureReport, followCwlRun } from '../../cwl/follow-run.js';
import { InputUploads } from '../../cwl/input-uploads.js';
import { loadLocalRun, unsupportedFeatures, type LocalRun } from '../../cwl/local-run.js';
import { OutputDownloads } from '../../cwl/output-downloads.js';
import { clientCommand, clientFor, settingsFor, type ClientFlags } from '../../context.js';
import { CliError, EXIT, unsupportedFeature, usageError } from '../../exit.js';
import { formatBytes, note } from '../../output.js';
import { progressEnabled } from '../../progress.js';
import { stringifyExactJson } from '../../../contract/exact-json.js';

/** `gdflow cwl run`: the cwl-runner command-line contract (docs/cwl.md, "Running CWL"). */

interface RunFlags extends ClientFlags {
  outdir?: string;
  quiet?: boolean;
  basedir?: string;
  executor?: string;
}

const HELP = `
The cwl-runner contract that CWL's test driver (cwltest) and scripts use: the CWL output object is printed as JSON on
stdout, its Files and Directories downloaded into --outdir (location, path, basename, size and sha1 checksum of the
local files; Directories with their listing), the progress goes to stderr.

It runs on the server the CLI is configured for (GDFLOW_ENDPOINT and keys, or the config file: gdflow config set),
as a task like any other (gdflow task ls, the console, logs, stop, call caching): the document is read and checked
here, packed into one (run: files inlined, $import, $include and SchemaDefRequirement imports expanded), every input
File and Directory (and their secondary files, and the document's default files) uploaded to the data store under
/cwl/inputs/<content hash>/ (once: what the store holds already is not sent again), the outputs downloaded from
/cwl/runs/<task id>/. With no server configured, it starts one of its own for the run (in this process, on 127.0.0.1,
on a temporary data root removed at the end), so that it works as a standalone CWL runner; GDFLOW_EXECUTOR or
--executor chooses how its jobs run (bwrap by default; podman for DockerRequirement's images).

Ctrl-C stops the run's task. Exit status: 0 success; 33 the document needs a feature gdflow does not support (named
on stderr); 2 a bad command line; 1 anything else (an invalid document or job, a failed run).

Examples:
  gdflow cwl run wf.cwl job.yml                          # outputs into the current directory
  gdflow cwl run --outdir=results --quiet tools/echo.cwl#main
  gdflow cwl run --basedir data/ wf.cwl job.json         # relative locations of the job are in data/
  gdflow cwl run --executor podman docker-tool.cwl job.yml`;

export function registerCwlRun(cwl: Command): void {
  clientCommand(
    cwl.command('run <document> [job]').description('run a CWL document (DOC.cwl or DOC.cwl#id) with a job object (JSON or YAML): the cwl-runner contract'),
  )
    .option('--outdir <dir>', 'where the outputs are written (default: the current directory)')
    .option('--quiet', 'no progress on stderr, only warnings and errors')
    .option('--basedir <dir>', "where the job's relative locations are (default: the job file's directory)")
    .option('--executor <kind>', "with no server configured: how the run's own server runs jobs (bwrap, host, podman, docker) [GDFLOW_EXECUTOR]")
    .addHelpText('after', HELP)
    .action(async (document: string, job: string | undefined, flags: RunFlags) => {
      try {
        await runCwl(document, job, flags);
      } catch (error) {
        throw asRunFailure(error);
      }
    });
}

async function runCwl(document: string, job: string | undefined, flags: RunFlags): Promise<void> {
  const quiet = flags.quiet === true;
  const local = await loadLocalRun(document, job, flags.basedir === undefined ? {} : { basedir: flags.basedir });
  for (const warning of local.warnings) note(`warning: ${warning}`);
  const configured = Boolean(settingsFor(flags).values.endpoint);
  if (configured && flags.executor !== undefined)
    throw usageError('--executor is for the server gdflow cwl run starts when no server is configured; the configured server runs jobs its own way');
  const server: EmbeddedServer | undefined = configured
    ? undefined
    : await startEmbeddedServer(flags.executor === undefined ? {} : { executor: flags.executor });
  try {
    const client = server?.client ?? clientFor(flags);
    if (!quiet)
      note(
        server ? `gdflow server for this run on ${server.url} (data in ${server.dataDir}, removed at the end)` : `gdflow server ${client.transport.endpoint}`,
      );
    const started = await startRun(client, local, quiet);
    if (!quiet) note(`task ${started.task_name} (${started.task_id}) started`);
    const run = await followCwlRun(client, started.task_id, { quiet });
    if (run.status !== 'succeeded') {
      for (const line of await failureReport(client, run)) note(line);
      throw new CliError(`the run ${run.status}`, EXIT.failed);
    }
    const outputs = await new OutputDownloads(client, resolve(flags.outdir ?? '.')).localize(run.outputs ?? {});
    process.stdout.write(`${stringifyExactJson(outputs, 4)}\n`);
  } finally {
    await server?.close();
  }
}

/** Uploads what the run reads and starts it: the job's files and the document's, then POST cwl/runs/. */
async function startRun(client: Client, local: LocalRun, quiet: boolean): Promise<{ task_id: string; task_name: string }> {
  const uploads = new InputUploads(client);
  const job = (await uploads.rewrite(local.inputs, 'inputs')) as Record<string, unknown>;
  if (local.requirements !== undefined) job['cwl:requirements'] = await uploads.rewrite(local.requirements, 'cwl:requirements');
  const document = await uploads.rewriteDocument(local.packed.document);
  const sent = await uploads.upload({ progress: !quiet && progressEnabled() });
  if (!quiet) note(`inputs: ${sent.uploaded} files uploaded (${formatBytes(sent.bytes)}), ${sent.reused} already in the data store`);
  return client.runCwl({ document, process: local.packed.process, job });
}

/**
 * Every failure as cwl-runners report it: 33 for a feature gdflow does not support (found here, or refused by the
 * server with UnsupportedRequirement), 2 for a bad command line or setting (--executor nonsense), 130 for Ctrl-C,
 * and 1 for anything else (the server unreachable too).
 */
function asRunFailure(error: unknown): unknown {
  if (error instanceof ConfigError) return usageError(error.message);
  const features = unsupportedFeatures(error);
  if (features.length > 0) return unsupportedFeature(features, (error as Error).message);
  if (error instanceof GdApiError && error.errorCode === 'UnsupportedRequirement') return new CliError(`unsupported: ${error.errorMessage}`, EXIT.unsupported);
  if (error instanceof CliError) return error.exitCode === EXIT.unreachable ? new CliError(error.message, EXIT.failed) : error;
  return new CliError(error instanceof Error ? error.message : String(error), EXIT.failed);
}
