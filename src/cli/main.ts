#!/usr/bin/env node
import './threadpool.js';
import { Command, CommanderError } from 'commander';
import { DataPathError } from '../client/data-names.js';
import { describeApiError } from './api-errors.js';
import { GdApiError, GdConnectionError } from '../client/errors.js';
import { ConfigError } from '../config/config.js';
import { DomainError } from '../domain/errors.js';
import { registerBatch } from './commands/batch.js';
import { registerConfig } from './commands/config/index.js';
import { registerCwl } from './commands/cwl/index.js';
import { registerWdl } from './commands/wdl/index.js';
import { registerData } from './commands/data/index.js';
import { registerTask } from './commands/task/index.js';
import { registerTool } from './commands/tool/index.js';
import { registerWorkflow } from './commands/workflow/index.js';
import { CliError, EXIT, EXIT_CODES_HELP } from './exit.js';
import { packageVersion } from '../package-root.js';

/** Exit codes: 0 success, 1 operation failed, 2 usage or configuration error, 3 server unreachable. */
export { EXIT };

/** Commands that only talk to a server: they need not load the server's own modules. */
const CLIENT_COMMANDS = new Set(['config', 'tool', 'workflow', 'task', 'data', 'batch', 'cwl', 'wdl']);

/**
 * The server-side commands import the whole server (web framework, database driver), which costs
 * most of a second at every start; a client command skips loading them.
 */
async function registerServerCommands(program: Command, argv: string[]): Promise<void> {
  const first = argv.slice(2).find((arg) => !arg.startsWith('-'));
  if (first !== undefined && CLIENT_COMMANDS.has(first)) return;
  const [{ registerServe }, { registerAdmin }, { registerDemo }, { registerOpenApi }] = await Promise.all([
    import('./commands/serve.js'),
    import('./commands/admin.js'),
    import('./commands/demo.js'),
    import('./commands/openapi.js'),
  ]);
  registerServe(program);
  registerAdmin(program);
  registerDemo(program);
  registerOpenApi(program);
}

export async function buildProgram(argv: string[] = process.argv): Promise<Command> {
  const program = new Command('gdflow')
    .description('gdflow: run bioinformatics tools and workflows (GeneDock API server, CLI and SDK)')
    .version(packageVersion())
    // Program options (-V/--version) only before the command, so that commands can have their own --version N.
    .enablePositionalOptions()
    .showHelpAfterError()
    .exitOverride()
    .addHelpText('afterAll', EXIT_CODES_HELP);
  // Server side (serve, admin, demo): loaded only when the command line may need them.
  await registerServerCommands(program, argv);
  // Client side: talk to a server with a configured access key.
  registerConfig(program);
  registerTool(program);
  registerWorkflow(program);
  registerTask(program);
  registerData(program);
  registerBatch(program);
  registerCwl(program);
  registerWdl(program);
  return program;
}

function fail(message: string, code: number): number {
  process.stderr.write(`gdflow: ${message}\n`);
  return code;
}

async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? EXIT.ok : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof CliError) return fail(error.message, error.exitCode);
    if (error instanceof GdApiError) return fail(describeApiError(error, argv), EXIT.failed);
    if (error instanceof GdConnectionError) return fail(error.message, EXIT.unreachable);
    if (error instanceof ConfigError || error instanceof DataPathError) return fail(error.message, EXIT.usage);
    if (error instanceof DomainError) return fail(error.reason, EXIT.failed);
    return fail(error instanceof Error ? error.message : String(error), EXIT.failed);
  }
}

// `gdflow task ls | head`: a reader that went away is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.ok);
  throw error;
});

// main turns every error into a message and an exit code, so the promise never rejects.
void main(process.argv).then((code) => {
  // `serve` keeps the event loop alive; client commands may leave idle keep-alive sockets behind.
  if (code !== EXIT.ok) process.exit(code);
});
