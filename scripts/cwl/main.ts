#!/usr/bin/env node
import { CommanderError, InvalidArgumentError } from 'commander';
import { basename, extname } from 'node:path';
import { writeBadges } from './badges.js';
import { writeJunitXml } from './junit.js';
import { parseOptions, type DriverOptions } from './options.js';
import { closingLine, tagTable, tally, tallyByTag, testLine, type Finished } from './report.js';
import { runTest, signalGroup, testCommand, type RunnerConfig } from './run-test.js';
import { numberTests, selectTests, SelectionError, type NumberedTest } from './select.js';
import { startDriverServer, type DriverServer } from './server.js';
import { loadSuite, SuiteError } from './suite.js';

/**
 * The CWL conformance driver (issue 24): `npm run test:cwl [-- options]`. Reads the suite, runs the chosen tests
 * through the runner `--jobs` at a time, prints a line per test as it ends and, last, `N passed, F failed,
 * U unsupported`. `--help` lists the options.
 */

const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<number> {
  let options: DriverOptions;
  let numbered: NumberedTest[];
  let chosen: NumberedTest[];
  let root: string;
  let suiteFile: string;
  try {
    options = parseOptions(argv);
    const suite = loadSuite(options.suite);
    ({ root, file: suiteFile } = suite);
    numbered = numberTests(suite.tests, options.selection);
    chosen = selectTests(numbered, options.selection);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    // The suite's and the selection's errors, and an unusable --runner, name what is wrong: no stack trace.
    if (error instanceof SuiteError || error instanceof SelectionError || error instanceof InvalidArgumentError) {
      process.stderr.write(`test:cwl: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  if (options.showTags) {
    const counts = new Map<string, number>();
    for (const { test } of numbered) for (const tag of test.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    for (const [tag, n] of [...counts].sort(([a], [b]) => a.localeCompare(b))) process.stdout.write(`${tag} (${n})\n`);
    return 0;
  }
  if (options.list) {
    for (const { number, test } of chosen) process.stdout.write(`[${number}] ${test.id}: ${test.doc}\n`);
    return 0;
  }
  if (chosen.length === 0) {
    process.stderr.write('test:cwl: no test is selected\n');
    return EXIT_USAGE;
  }

  const server: DriverServer | undefined = options.server ? await startDriverServer() : undefined;
  const runner: RunnerConfig = {
    command: options.runner,
    args: options.runnerArgs,
    cwd: root,
    timeoutSeconds: options.timeoutSeconds,
    keepOutdirs: options.keepOutdirs,
    ...(server ? { env: server.env } : {}),
  };
  process.stdout.write(
    `${chosen.length} of the ${numbered.length} tests of ${suiteFile}, ${options.jobs} at a time, ${options.timeoutSeconds} s each at most\n` +
      `runner: ${[...options.runner, ...options.runnerArgs].join(' ')}${server ? ` (on the server ${server.url})` : ''}\n`,
  );
  const running = new Set<number>();
  const interrupted = () => {
    // The runners are in their own process groups, so the terminal's Ctrl-C does not reach them: pass it on.
    for (const pid of running) signalGroup(pid, 'SIGKILL');
    process.stderr.write('\ntest:cwl: interrupted\n');
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  const started = performance.now();
  const finished: Finished[] = [];
  let next = 0;
  const worker = async () => {
    while (next < chosen.length) {
      const entry = chosen[next++]!;
      if (options.verbose) process.stderr.write(`running ${entry.number}: ${testCommand(runner, entry.test, '<outdir>').join(' ')}\n`);
      const result = await runTest(runner, entry.test, running);
      finished.push({ entry, result });
      process.stdout.write(`${testLine({ entry, result }, numbered.length)}${options.keepOutdirs ? `\n      outdir: ${result.outdir}` : ''}\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.jobs, chosen.length) }, worker));
  } finally {
    await server?.close();
  }
  const wallSeconds = (performance.now() - started) / 1000;

  finished.sort((a, b) => a.entry.number - b.entry.number);
  const failed = finished.filter(({ result }) => result.status === 'FAIL' || result.status === 'TIMEOUT');
  const unsupported = finished.filter(({ result }) => result.status === 'UNSUPPORTED');
  if (failed.length > 0) process.stdout.write(`\nfailed: ${failed.map(({ entry }) => `${entry.number} ${entry.test.id}`).join(', ')}\n`);
  if (unsupported.length > 0) process.stdout.write(`\nunsupported: ${unsupported.map(({ entry }) => `${entry.number} ${entry.test.id}`).join(', ')}\n`);
  process.stdout.write(`\n${tagTable(tallyByTag(finished))}\n\nwall time ${wallSeconds.toFixed(1)} s\n`);
  if (options.badgedir !== undefined) writeBadges(options.badgedir, finished);
  if (options.junitXml !== undefined) writeJunitXml(options.junitXml, finished, basename(suiteFile, extname(suiteFile)), options.classname);
  const total = tally(finished);
  process.stdout.write(`${closingLine(total)}\n`);
  return total.failed > 0 ? EXIT_FAILED : 0;
}

// `--list | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});
process.exitCode = await main(process.argv.slice(2));
