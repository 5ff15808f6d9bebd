import { Command, InvalidArgumentError, Option } from 'commander';
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Selection } from './select.js';

/** The driver's command line: cwltest's options under the same letters, the runner as a command string. */

export interface DriverOptions {
  suite: string;
  runner: string[];
  runnerArgs: string[];
  jobs: number;
  timeoutSeconds: number;
  selection: Selection;
  list: boolean;
  showTags: boolean;
  badgedir: string | undefined;
  junitXml: string | undefined;
  classname: string;
  keepOutdirs: boolean;
  verbose: boolean;
  server: boolean;
}

/** The repository root, from dist/scripts/cwl/ where the compiled driver runs. */
const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** This checkout's `gdflow` (its build), by absolute path since tests run in other directories. */
export const GDFLOW_CLI = [process.execPath, join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js')];
/** gdflow's own runner. */
export const GDFLOW_RUNNER = [...GDFLOW_CLI, 'cwl', 'run'];

/** The suite beside the repository (the shared checkout: ../shared/cwl-v1.2), unless GDFLOW_CWL_SUITE says where. */
export function defaultSuite(env: NodeJS.ProcessEnv = process.env): string {
  return env.GDFLOW_CWL_SUITE || resolve(REPO_ROOT, '..', 'shared', 'cwl-v1.2');
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): DriverOptions {
  const program = new Command('test:cwl')
    .description(
      "Runs the CWL conformance suite (cwltest's contract) through a CWL runner: each test as RUNNER [RUNNER_ARGS] --outdir=DIR --quiet " +
        'TOOL [JOB] in the suite directory, its output compared with the expected one. Exit status: 0 when no test failed ' +
        '(unsupported ones allowed), 1 when some failed, 2 for a usage or suite error.',
    )
    .usage('[options] [-- RUNNER_ARGS...]')
    .option(
      '--suite <path>',
      'the suite directory (holding conformance_tests.yaml) or a test file (default: $GDFLOW_CWL_SUITE or ../shared/cwl-v1.2 beside the repository)',
    )
    .option('--runner <command>', `the runner command, split at spaces (default: gdflow's, "node dist/src/cli/main.js cwl run"); e.g. "cwltool --no-container"`)
    .addOption(new Option('-j, --jobs <n>', 'tests run at the same time').default(2).argParser(positiveInteger('--jobs')))
    .addOption(
      new Option('--timeout <seconds>', "a test's time limit; the runner's process group is stopped then").default(600).argParser(positiveInteger('--timeout')),
    )
    .option('--tags <tags>', 'only tests with one of these tags (comma-separated)', commaList)
    .option('--exclude-tags <tags>', 'no test with one of these tags', commaList)
    .option('-n, --numbers <ranges>', 'only these tests by number, as in --list with the same tags: 1-10,15')
    .option('-N, --exclude-numbers <ranges>', 'not these tests by number')
    .option('-s, --id <ids>', 'only these tests by id (comma-separated)', commaList)
    .option('-S, --exclude-id <ids>', 'not these tests by id', commaList)
    .option('-l, --list', 'list the tests the tag filters keep, with their numbers, and exit')
    .option('--show-tags', "list the suite's tags with their test counts, and exit")
    .option('--badgedir <dir>', "write cwltest's badges there: TAG.json (shields.io) and TAG.md for every tag and 'all'")
    .option('--junit-xml <file>', 'write a JUnit XML report')
    .option('--classname <name>', 'the JUnit classname of every test case', 'cwl-conformance')
    .option('--keep-outdirs', "keep each test's output directory (they are printed with failures) instead of removing it")
    .option('--verbose', 'print each command before it runs')
    .option(
      '--server',
      'run every test on one gdflow server started for the run (in the driver, on a temporary data root; its executor from GDFLOW_EXECUTOR), ' +
        "handing its endpoint and key to the runner (GDFLOW_ENDPOINT, ...), instead of each 'gdflow cwl run' starting one",
    )
    .argument('[runnerArgs...]', 'passed to the runner after its command, before --outdir (put them after --)')
    .exitOverride()
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) });
  program.parse(argv, { from: 'user' });
  const o = program.opts<{
    suite?: string;
    runner?: string;
    jobs: number;
    timeout: number;
    tags?: string[];
    excludeTags?: string[];
    numbers?: string;
    excludeNumbers?: string;
    id?: string[];
    excludeId?: string[];
    list?: boolean;
    showTags?: boolean;
    badgedir?: string;
    junitXml?: string;
    classname: string;
    keepOutdirs?: boolean;
    verbose?: boolean;
    server?: boolean;
  }>();
  return {
    suite: resolve(o.suite ?? defaultSuite(env)),
    runner: o.runner === undefined ? GDFLOW_RUNNER : runnerWords(o.runner),
    runnerArgs: program.args,
    jobs: o.jobs,
    timeoutSeconds: o.timeout,
    selection: { tags: o.tags, excludeTags: o.excludeTags, numbers: o.numbers, excludeNumbers: o.excludeNumbers, ids: o.id, excludeIds: o.excludeId },
    list: o.list ?? false,
    showTags: o.showTags ?? false,
    badgedir: o.badgedir === undefined ? undefined : resolve(o.badgedir),
    junitXml: o.junitXml === undefined ? undefined : resolve(o.junitXml),
    classname: o.classname,
    keepOutdirs: o.keepOutdirs ?? false,
    verbose: o.verbose ?? false,
    server: o.server ?? false,
  };
}

/**
 * The runner command as words. A relative path to the program (`./my-runner`) is made absolute here, because the
 * runner starts in the suite's directory, not in the one the driver was started from; so is a later word that is a
 * relative path to a file here, the script an interpreter runs (`node dist/scripts/wes-runner/main.js`).
 */
export function runnerWords(command: string): string[] {
  const words = command.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) throw new InvalidArgumentError('--runner: the command is empty');
  return words.map((word, i) => (word.includes('/') && !isAbsolute(word) && !word.startsWith('-') && (i === 0 || existsSync(word)) ? resolve(word) : word));
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function positiveInteger(option: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${option} must be a whole number of at least 1`);
    return Number(value);
  };
}
