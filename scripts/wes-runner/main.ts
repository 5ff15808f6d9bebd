#!/usr/bin/env node
import { resolve } from 'node:path';
import { Command } from 'commander';
import { OutputDownloads } from '../../src/cli/cwl/output-downloads.js';
import { unsupportedFeatures } from '../../src/cli/cwl/local-run.js';
import { CliError, EXIT } from '../../src/cli/exit.js';
import { stringifyExactJson } from '../../src/contract/exact-json.js';
import { wesRequestOf } from './attachments.js';
import { UNSUPPORTED_MESSAGE, WesClient, WesError, WesOutputFiles } from './wes-client.js';

/**
 * gdflow's own WES client as a cwl-runner (docs/ga4gh.md, "CWL tests through WES"), as Toil's toil-wes-cwl-runner
 * is one: `node dist/scripts/wes-runner/main.js [--outdir=DIR] [--quiet] DOC.cwl[#id] [JOB]` runs a CWL document
 * through a WES 1.1 server and prints the output object, so that the CWL conformance driver (scripts/cwl) checks a
 * server's WES with the suite it checks `gdflow cwl run` with.
 */

interface Flags {
  outdir?: string;
  quiet?: boolean;
  basedir?: string;
  endpoint?: string;
  user?: string;
  password?: string;
}

const HELP = `
The document and job are read and checked here by gdflow cwl run's loader; the document, every file it reads (run:,
$import, $include, schema imports) and every File and Directory of the job and of the document's defaults are attached
to POST /ga4gh/wes/v1/runs under their paths relative to the directory that holds them all, with workflow_type CWL,
workflow_type_version the document's cwlVersion, workflow_url the attached main file (#id kept) and workflow_params
the job, its locations made relative to the attachments. The run's status is polled until it ends; then its outputs'
location URLs are downloaded into --outdir (read with the same credentials) and the output object is printed with
local location, path, basename, size, checksum, secondaryFiles and listing.

Credentials: Basic, access key id and secret (--user, --password, or GDFLOW_ACCESS_KEY_ID, GDFLOW_ACCESS_KEY_SECRET);
the server: --endpoint or GDFLOW_ENDPOINT (what the conformance driver's --server hands its runner).

Exit status: 0 the run is COMPLETE; 33 the document needs a feature gdflow does not support (found here, or the
server's answer to POST /runs says so: "${UNSUPPORTED_MESSAGE}"); 1 anything else (an invalid document or job, a
refused request, a run that ended otherwise); 2 a bad command line.

Example (the CWL required tests through WES):
  node dist/scripts/cwl/main.js --tags required --server --runner "node dist/scripts/wes-runner/main.js"`;

function program(): Command {
  return new Command('wes-runner')
    .description('run a CWL document through a GA4GH WES 1.1 server (gdflow): the cwl-runner contract')
    .argument('<document>', 'DOC.cwl or DOC.cwl#id')
    .argument('[job]', 'the job object (JSON or YAML)')
    .option('--outdir <dir>', 'where the outputs are written (default: the current directory)')
    .option('--quiet', 'no progress on stderr, only warnings and errors')
    .option('--basedir <dir>', "where the job's relative locations are (default: the job file's directory)")
    .option('--endpoint <url>', 'the server (default: GDFLOW_ENDPOINT); WES is at /ga4gh/wes/v1 below it')
    .option('--user <id>', 'access key id (default: GDFLOW_ACCESS_KEY_ID)')
    .option('--password <secret>', 'access key secret (default: GDFLOW_ACCESS_KEY_SECRET)')
    .addHelpText('after', HELP)
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT.usage));
}

async function run(document: string, job: string | undefined, flags: Flags): Promise<void> {
  const endpoint = flags.endpoint ?? process.env.GDFLOW_ENDPOINT;
  const user = flags.user ?? process.env.GDFLOW_ACCESS_KEY_ID;
  const password = flags.password ?? process.env.GDFLOW_ACCESS_KEY_SECRET;
  if (!endpoint || !user || !password)
    throw new CliError('no server: give --endpoint, --user and --password (or GDFLOW_ENDPOINT and the key variables)', EXIT.usage);
  const say = (line: string): void => void (flags.quiet ? undefined : process.stderr.write(`${line}\n`));
  const request = await wesRequestOf(document, job, flags.basedir === undefined ? {} : { basedir: flags.basedir });
  for (const warning of request.warnings) process.stderr.write(`warning: ${warning}\n`);
  const client = new WesClient(endpoint, user, password);
  const runId = await client.startRun(request);
  say(`WES run ${runId} started (${request.attachments.size} files attached)`);
  // The driver's timeout (SIGTERM) or Ctrl-C: the run is cancelled, not left running on the server.
  const stop = (signal: NodeJS.Signals): void => {
    void client.cancel(runId).finally(() => process.exit(signal === 'SIGINT' ? EXIT.interrupted : 143));
  };
  process.once('SIGINT', stop).once('SIGTERM', stop);
  const state = await client.waitForRun(runId);
  const log = await client.runLog(runId);
  if (state !== 'COMPLETE') {
    const systemLogs = ((log.run_log as { system_logs?: unknown } | undefined)?.system_logs ?? []) as unknown[];
    for (const line of systemLogs) process.stderr.write(`${String(line)}\n`);
    throw new CliError(`WES run ${runId} ended ${state}`, EXIT.failed);
  }
  const outputs = await new OutputDownloads(new WesOutputFiles(client), resolve(flags.outdir ?? '.')).localize(log.outputs ?? {});
  process.stdout.write(`${stringifyExactJson(outputs, 4)}\n`);
}

/** cwl-runner exit codes: 33 for an unsupported feature, whoever found it; 2 for a bad command line; 1 otherwise. */
function exitCodeOf(error: unknown): number {
  if (unsupportedFeatures(error).length > 0) return EXIT.unsupported;
  if (error instanceof WesError && error.msg.startsWith(UNSUPPORTED_MESSAGE)) return EXIT.unsupported;
  if (error instanceof CliError) return error.exitCode === EXIT.unreachable ? EXIT.failed : error.exitCode;
  return EXIT.failed;
}

const cli = program().action(async (document: string, job: string | undefined, flags: Flags) => {
  try {
    await run(document, job, flags);
  } catch (error) {
    process.stderr.write(`wes-runner: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = exitCodeOf(error);
  }
});
await cli.parseAsync(process.argv);
