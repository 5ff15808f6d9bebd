import type { Command } from 'commander';
import type { Client } from '../../client/client.js';
import type { RunParameters } from '../../client/types.js';
import { followAll, type Followed } from '../batch/follow.js';
import { defaultLogPath, LogWriter, readLog, type LogEntry } from '../batch/log.js';
import { readSampleSheet } from '../batch/sheet.js';
import { submitAll } from '../batch/submit.js';
import { checkInputsExist, describeProblem, planBatch, type BatchTemplate, type Problem } from '../batch/validate.js';
import { runTarget, templateOrigin } from '../batch/origin.js';
import { clientCommand, clientFor, type ClientFlags } from '../context.js';
import { parseDocument, positiveInteger, readText, runDocument, secondsOption, versionOption } from '../documents.js';
import { CliError, EXIT, usageError } from '../exit.js';
import { formatDuration, formatTable, note, printJson, runTime, say } from '../output.js';
import { interruptible } from '../interrupt.js';
import { missingWorkflow } from '../not-found.js';
import { ownerClient, parseOwner, withOwner } from '../owner.js';
import { progressBar } from '../progress.js';

interface Flags extends ClientFlags {
  workflow?: string;
  version?: string;
  owner?: string;
  taskName?: string;
  key?: string;
  log?: string;
  concurrency: string;
  checkInputs: boolean;
  dryRun?: boolean;
  wait?: boolean;
  interval: string;
}

const SHOWN_PROBLEMS = 50;

function refuse(problems: Problem[], what: string): never {
  const lines = problems.slice(0, SHOWN_PROBLEMS).map((p) => `  ${describeProblem(p)}`);
  if (problems.length > SHOWN_PROBLEMS) lines.push(`  ... and ${problems.length - SHOWN_PROBLEMS} more`);
  const rows = new Set(problems.flatMap((p) => (p.row ? [p.row.row] : [])));
  throw usageError(
    `${what}: ${rows.size > 0 ? `${rows.size} bad row${rows.size > 1 ? 's' : ''}` : 'the template does not fit the sample sheet'}; nothing was submitted\n${lines.join('\n')}`,
  );
}

function summaryTable(followed: Followed[]): string {
  return formatTable(followed, [
    { header: 'row', value: (f) => f.entry.row, right: true },
    { header: 'task', value: (f) => f.entry.task_name },
    { header: 'task id', value: (f) => f.entry.task_id },
    { header: 'status', value: (f) => f.status },
    { header: 'duration', value: (f) => (f.task ? formatDuration(runTime(f.task)) : '-'), right: true },
    { header: 'reason', value: (f) => (f.status === 'succeeded' ? '' : (f.task?.reason ?? '')) },
  ]);
}

/** `--wait`: follow every task of the sheet (those submitted now and by earlier runs) to its end, with a summary. */
async function followBatch(
  client: Client,
  planned: ReadonlyArray<{ key: string }>,
  logPath: string,
  options: { intervalMs: number; concurrency: number; json: boolean },
): Promise<Followed[]> {
  const { entries } = readLog(logPath);
  const mine = planned.flatMap((p) => {
    const entry = entries.get(p.key);
    return entry ? [entry] : [];
  }) satisfies LogEntry[];
  const following = followAll(client, mine, { intervalMs: options.intervalMs, concurrency: options.concurrency, quiet: options.json });
  const interrupted = () => `interrupted: the ${mine.length} tasks of the batch keep running; the same command follows them again, submitting nothing`;
  const followed = await interruptible(following, interrupted);
  followed.sort((a, b) => a.entry.row - b.entry.row);
  if (!options.json) {
    say(summaryTable(followed));
    const counts = new Map<string, number>();
    for (const f of followed) counts.set(f.status, (counts.get(f.status) ?? 0) + 1);
    say(`${followed.length} tasks: ${[...counts.entries()].map(([s, n]) => `${n} ${s}`).join(', ')}`);
  }
  return followed;
}

const BATCH_HELP = `
The template is the run-parameter template of the workflow ('gdflow workflow getparam NAME') with
placeholders: {$column} in any string (input and output names, task name, parameter values) is
replaced by that row's value of the column. The sample sheet is TSV or CSV with a header row:

  params.yml:                              samples.tsv:
    name: '{$sample}_qc'                     sample<TAB>read
    Inputs:                                  s01<TAB>/reads/s01.fastq
      load_reads:                            s02<TAB>/reads/s02.fastq
        data: [{name: '{$read}'}]
    Outputs:
      save_report:
        data: [{name: '/results/{$sample}/report.txt'}]

  gdflow workflow getparam qc -o params.yml     # its first line, '# workflow: qc', names the workflow
  gdflow batch params.yml samples.tsv --wait    # or --workflow qc, for a template without that line

Every row is checked before anything is submitted (placeholders filled, task names valid and
unique, data names well formed, formats, parameter types and ranges, inputs present); a bad row
stops the whole batch (exit 2) with its row number and problem. Each submitted row is written
to the submission log at once; running the same command again skips the rows in the log, so an
interrupted batch is resumed by re-running it.`;

/** `gdflow batch`: one task per row of a sample sheet, from a template with `{$column}` placeholders. */
export function registerBatch(program: Command): void {
  const command = clientCommand(
    program
      .command('batch <template> <samplesheet>')
      .description('start one task per row of a sample sheet, filling {$column} placeholders of a run-parameter template'),
  );
  withOwner(command, 'run a workflow')
    .option(
      '-w, --workflow <name>',
      "workflow to run (default: the template's workflow_name, or the workflow its first line names, as 'workflow getparam -o' writes it)",
    )
    .option('--version <n>', 'workflow version (default: the latest runnable one)')
    .option('--task-name <pattern>', "task name pattern, e.g. '{$sample}_qc' (default: the template's name; none: generated)")
    .option('--key <column>', 'column that identifies a row in the submission log (default: the whole row)')
    .option('--log <file>', 'submission log (default: <samplesheet>.<workflow>.submitted.jsonl beside the sheet)')
    .option('-c, --concurrency <n>', 'submissions in flight at once', '8')
    .option('--no-check-inputs', 'do not check that every input exists before submitting')
    .option('--dry-run', 'validate and show what would be submitted, submit nothing')
    .option('--wait', 'then follow every task of the sheet to its end and print a summary (exit 1 if any failed)')
    .option('--interval <seconds>', 'poll interval with --wait', '2')
    .option('--json', 'print the outcome as JSON')
    .addHelpText('after', BATCH_HELP)
    .action(async (templatePath: string, sheetPath: string, flags: Flags) => {
      const text = readText(templatePath);
      const doc = runDocument(parseDocument(text, templatePath), templatePath);
      // Written by 'workflow getparam -o': the template's first line names its workflow.
      const origin = templateOrigin(text);
      const workflow = flags.workflow ?? doc.workflow_name ?? origin?.name;
      if (!workflow)
        throw usageError(
          `which workflow? give --workflow NAME (or workflow_name in ${templatePath}, or a first line '# workflow: NAME' as 'gdflow workflow getparam -o' writes)`,
        );
      const { version, owner } = runTarget(workflow, { version: versionOption(flags.version), owner: flags.owner }, doc, origin);
      if (owner !== undefined) parseOwner(owner);
      const concurrency = positiveInteger(flags.concurrency, '--concurrency');
      const intervalMs = secondsOption(flags.interval, '--interval') * 1000;
      const template: BatchTemplate = {
        workflow_name: workflow,
        parameters: doc.parameters,
        ...(version !== undefined ? { workflow_version: version } : {}),
        ...(owner !== undefined ? { workflow_owner: owner } : {}),
        ...((flags.taskName ?? doc.task_name) !== undefined ? { task_name: (flags.taskName ?? doc.task_name)! } : {}),
      };
      const sheet = readSampleSheet(sheetPath);
      if (sheet.rows.length === 0) throw usageError(`sample sheet ${sheetPath} has a header but no rows`);

      const client = clientFor(flags);
      const account = await client.accountName();
      // The workflow's own template (its owner's, e.g. a public workflow's): node ids, formats, item counts, parameter types.
      const source = await ownerClient(client, owner);
      const reference: RunParameters = (await source.getExecutableWorkflow(workflow, version).catch(missingWorkflow(source, workflow))).parameter;
      const { planned, problems, inputs } = planBatch(template, sheet, { account, reference, ...(flags.key !== undefined ? { keyColumn: flags.key } : {}) });
      // Every row's inputs are checked, bad rows' too, so that one run names every problem.
      if (flags.checkInputs) problems.push(...(await checkInputsExist(client, inputs)));
      if (problems.length > 0) {
        problems.sort((a, b) => (a.row?.row ?? 0) - (b.row?.row ?? 0));
        refuse(problems, `${sheetPath} does not fit ${templatePath}`);
      }

      const logPath = flags.log ?? defaultLogPath(sheetPath, workflow);
      const { entries: logged, skipped } = readLog(logPath);
      if (skipped > 0) note(`${logPath}: ${skipped} unreadable line${skipped > 1 ? 's' : ''} ignored (an interrupted write)`);
      const todo = planned.filter((p) => !logged.has(p.key));
      const already = planned.length - todo.length;
      if (!flags.json) note(`${sheet.rows.length} rows valid; ${already} already submitted (${logPath}), ${todo.length} to submit`);

      if (flags.dryRun) {
        if (flags.json)
          return printJson({
            rows: sheet.rows.length,
            already_submitted: already,
            to_submit: todo.map((p) => ({ row: p.row.row, key: p.key, request: p.request })),
          });
        say(
          formatTable(todo, [
            { header: 'row', value: (p) => p.row.row, right: true },
            { header: 'task name', value: (p) => p.request.task_name ?? '(generated)' },
            { header: 'inputs', value: (p) => p.inputs.map((i) => `${i.account}:${i.path}`).join(' ') },
          ]),
        );
        return;
      }

      const writer = new LogWriter(logPath);
      const bar = progressBar(todo.length, 'submitting [{bar}] {value}/{total} tasks | {eta_formatted} left');
      let result;
      let done = 0;
      const submitting = submitAll(client, todo, writer, {
        concurrency,
        onDone: (n) => {
          done = n;
          bar.update(n);
        },
      });
      try {
        const interrupted = () =>
          `interrupted: ${done} of ${todo.length} rows answered, each submitted one recorded in ${logPath}; run the same command again to submit the rest`;
        result = await interruptible(submitting, interrupted);
      } finally {
        bar.stop();
        writer.close();
      }
      const rate = result.elapsedSeconds > 0 ? result.submitted.length / result.elapsedSeconds : 0;
      if (!flags.json && todo.length === 0) say(`nothing to submit: all ${already} rows are in ${logPath}`);
      else if (!flags.json) {
        say(
          `submitted ${result.submitted.length} task${result.submitted.length === 1 ? '' : 's'} in ${result.elapsedSeconds.toFixed(2)} s (${rate.toFixed(1)} tasks/s)${already ? `, skipped ${already} already submitted` : ''}; log: ${logPath}`,
        );
        for (const { plan, error } of result.failed.slice(0, SHOWN_PROBLEMS))
          note(`  row ${plan.row.row} (line ${plan.row.line}) not submitted: ${error.message}`);
        if (result.failed.length > SHOWN_PROBLEMS) note(`  ... and ${result.failed.length - SHOWN_PROBLEMS} more`);
      }
      if (result.unreachable) {
        const left = todo.length - result.submitted.length;
        throw new CliError(
          `${result.unreachable.message}; ${left} row${left === 1 ? '' : 's'} not submitted: run the same command again to submit them`,
          EXIT.unreachable,
        );
      }

      const followed = flags.wait ? await followBatch(client, planned, logPath, { intervalMs, concurrency, json: Boolean(flags.json) }) : undefined;
      if (flags.json) {
        printJson({
          rows: sheet.rows.length,
          already_submitted: already,
          submitted: result.submitted,
          failed: result.failed.map(({ plan, error }) => ({ row: plan.row.row, key: plan.key, error: error.message })),
          elapsed_seconds: result.elapsedSeconds,
          tasks_per_second: rate,
          log: logPath,
          ...(followed
            ? {
                tasks: followed.map((f) => ({
                  row: f.entry.row,
                  task_id: f.entry.task_id,
                  task_name: f.entry.task_name,
                  status: f.status,
                  duration: f.task ? runTime(f.task) : null,
                  reason: f.task?.reason ?? null,
                })),
              }
            : {}),
        });
      }
      if (result.failed.length > 0)
        throw new CliError(`${result.failed.length} row${result.failed.length === 1 ? ' was' : 's were'} not submitted`, EXIT.failed);
      const bad = followed?.filter((f) => f.status !== 'succeeded') ?? [];
      if (bad.length > 0) throw new CliError(`${bad.length} of ${followed!.length} tasks did not succeed`, EXIT.failed);
    });
}
