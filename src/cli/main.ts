#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config.js';
import { DomainError } from '../domain/errors.js';
import { registerAdmin } from './commands/admin.js';
import { registerDemo } from './commands/demo.js';
import { registerServe } from './commands/serve.js';

/** Exit codes: 0 success, 1 operation failed, 2 usage or configuration error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export function buildProgram(): Command {
  const program = new Command('gdflow')
    .description('gdflow: run bioinformatics tools and workflows (GeneDock API server, CLI and SDK)')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  registerServe(program);
  registerAdmin(program);
  registerDemo(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof ConfigError) {
      process.stderr.write(`gdflow: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof DomainError) {
      process.stderr.write(`gdflow: ${error.reason}\n`);
      return EXIT.failed;
    }
    process.stderr.write(`gdflow: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  }
}

main(process.argv).then((code) => {
  // `serve` keeps the event loop alive; other commands end here.
  if (code !== EXIT.ok) process.exit(code);
});
