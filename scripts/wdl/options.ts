import { Command, InvalidArgumentError, Option } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export interface DriverOptions {
  readonly suite: string;
  /** Only these tests, by id (a must-fail test and its passing twin share an id: both run). */
  readonly only: ReadonlySet<string> | undefined;
  readonly jobs: number;
  readonly timeoutSeconds: number;
  /** Print the known failures as docs/wdl.md shows them, and exit. */
  readonly markdown: boolean;
}

/** The repository root, from dist/scripts/wdl/ where the compiled driver runs. */
const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** ../shared/wdl-1.1 beside the repository (a worktree of it sits one level deeper: ../../shared). */
function defaultSuite(): string {
  const near = resolve(REPO_ROOT, '..', 'shared', 'wdl-1.1');
  const far = resolve(REPO_ROOT, '..', '..', 'shared', 'wdl-1.1');
  return existsSync(near) || !existsSync(far) ? near : far;
}

const positive = (what: string) => (text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${what} takes a whole number of at least 1`);
  return n;
};

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): DriverOptions {
  const program = new Command('test:wdl')
    .description(
      "Runs the WDL 1.1 specification's example tests (openwdl/wdl-tests' layout) on an embedded gdflow server and compares " +
        'their outputs. Tests listed in scripts/wdl/known-failures.ts are expected to fail. Exit status: 0 when every other ' +
        'test passed and every listed one failed, 1 otherwise (a regression, or a list to update), 2 for a usage error.',
    )
    .argument('[suite]', 'the suite directory (default: $GDFLOW_WDL_SUITE or ../shared/wdl-1.1 beside the repository)')
    .option('--only <ids>', 'only these tests, by id (comma-separated)')
    .addOption(new Option('-j, --jobs <n>', 'tests run at the same time').default(3).argParser(positive('--jobs')))
    .addOption(new Option('--timeout <seconds>', "a test's time limit; its task is stopped then").default(60).argParser(positive('--timeout')))
    .option('--known-failures-markdown', 'print the list of known failures as docs/wdl.md shows it, and exit')
    .exitOverride()
    .parse([...argv], { from: 'user' });
  const opts = program.opts<{ only?: string; jobs: number; timeout: number; knownFailuresMarkdown?: boolean }>();
  const suite = program.args[0] ?? (env.GDFLOW_WDL_SUITE || defaultSuite());
  return {
    suite,
    only: opts.only === undefined ? undefined : new Set(opts.only.split(',').filter(Boolean)),
    jobs: opts.jobs,
    timeoutSeconds: opts.timeout,
    markdown: opts.knownFailuresMarkdown === true,
  };
}
