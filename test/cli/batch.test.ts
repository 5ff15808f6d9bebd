import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { until } from '../helpers/until.js';
import { cliFixture, collect, copyToolYaml, copyWorkflowYaml, flakyProxy, spawnCli, writeFile, type CliFixture } from './support.js';

let f: CliFixture;
let template: string;

const SAMPLES = Array.from({ length: 20 }, (_, i) => String(i + 1).padStart(2, '0'));

before(async () => {
  f = await cliFixture();
  assert.equal((await f.run(['tool', 'create', '-f', writeFile(f.dir, 'tool.yml', copyToolYaml('copyreads'))])).status, 0);
  assert.equal((await f.run(['workflow', 'create', '-f', writeFile(f.dir, 'wf.yml', copyWorkflowYaml(f.account.name))])).status, 0);
  for (const s of SAMPLES) await f.client.putData(`/reads/s${s}.fastq`, Buffer.from(`@read${s}\nACGT\n+\nIIII\n`));
  template = writeFile(
    f.dir,
    'template.yml',
    `# run parameters of copywf with placeholders
name: '{$sample}_copy'
Inputs:
  load_reads:
    data: [{name: '{$read}'}]
Outputs:
  save:
    data: [{name: '/results/{$sample}/out.fastq', description: 'copy of {$sample}'}]
Parameters:
  copy:
    parameters:
      threads: {value: '{$threads}'}
      label: {value: 'lbl-{$sample}'}
`,
  );
});
after(async () => f.close());

/** A TSV sheet of the 20 samples, task names `<prefix>NN_copy`; `edit` may change any row. */
function sheet(name: string, prefix: string, edit: (row: string[], i: number) => string[] = (r) => r): string {
  const rows = SAMPLES.map((s, i) => edit([`${prefix}${s}`, `/reads/s${s}.fastq`, String((i % 4) + 1)], i).join('\t'));
  return writeFile(f.dir, name, `sample\tread\tthreads\n${rows.join('\n')}\n`);
}

async function tasksNamed(prefix: string): Promise<Array<{ task_id: string; task_name: string; status: string }>> {
  const { task_list } = await f.client.listTasks({ size: 1000 });
  return task_list.filter((t) => t.task_name.startsWith(prefix));
}

/** The submission log's entries (a torn last line is skipped, as the CLI skips it). */
function logLines(path: string): any[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}

describe('gdflow batch', () => {
  it('refuses a 20-row sheet with a bad row before submitting anything, naming the row and the problem', async () => {
    const bad = sheet('bad.tsv', 'a', (row, i) => (i === 12 ? [row[0]!, '/reads/missing.fastq', row[2]!] : row));
    const result = await f.run(['batch', template, bad, '--workflow', 'copywf']);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /1 bad row; nothing was submitted/);
    assert.match(result.stderr, /row 13 \(line 14\): input '[^']+:\/reads\/missing\.fastq' does not exist in the data store/);
    assert.deepEqual(await tasksNamed('a'), [], 'no task was started');
    assert.ok(!existsSync(join(f.dir, 'bad.copywf.submitted.jsonl')), 'no submission log either');

    // Several kinds of problems at once, in a CSV sheet: every one is named.
    const csv = writeFile(
      f.dir,
      'problems.csv',
      [
        'sample,read,threads',
        'b01,/reads/s01.fastq,1',
        'b01,/reads/s02.fastq,2',
        'b03,reads/s03.fastq,3',
        'b04,/reads/s04.fastq,99',
        'b05,/reads/s05.fastq',
        '9bad,/reads/s06.fastq,1',
        'b07,/reads/s07.txt,1',
        'b08,/reads/s08.fastq,many',
      ].join('\n'),
    );
    const many = await f.run(['batch', template, csv, '--workflow', 'copywf']);
    assert.equal(many.status, 2);
    const expected = [
      /row 2 \(line 3\): task name 'b01_copy' is also row 1's/,
      /row 2 \(line 3\): output '[^']+:\/results\/b01\/out\.fastq' is also written by row 1/,
      /row 3 \(line 4\): Inputs\.load_reads: data name "reads\/s03\.fastq": expected/,
      /row 4 \(line 5\): Parameters\.copy\.threads is 99, above the maximum 16/,
      /row 5 \(line 6\): has 2 fields, but the header has 3/,
      /row 5 \(line 6\): column 'threads' is empty/,
      /row 6 \(line 7\): task name '9bad_copy' is not valid/,
      /row 7 \(line 8\): input '\/reads\/s07\.txt' \(Inputs\.load_reads\) has none of the accepted formats fastq, fq/,
      /row 8 \(line 9\): Parameters\.copy\.threads must be a number, not "many"/,
    ];
    for (const pattern of expected) assert.match(many.stderr, pattern);
    assert.deepEqual(await tasksNamed('b'), []);

    const noColumn = await f.run(['batch', template, writeFile(f.dir, 'nocol.tsv', 'sample\tthreads\nc01\t1\n'), '--workflow', 'copywf']);
    assert.equal(noColumn.status, 2);
    assert.match(noColumn.stderr, /the template uses \{\$read\}, but the sample sheet has no such column \(columns: sample, threads\)/);
  });

  it('shows the plan with --dry-run and submits nothing', async () => {
    const dry = await f.run(['batch', template, sheet('dry.tsv', 'd'), '--workflow', 'copywf', '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /^\s+13\s+d13_copy\s+\S+:\/reads\/s13\.fastq$/m);
    const json = await f.run(['batch', template, sheet('dry.tsv', 'd'), '--workflow', 'copywf', '--dry-run', '--json', '--key', 'sample']);
    const plan = json.json();
    assert.equal(plan.to_submit.length, 20);
    assert.equal(plan.to_submit[0].key, 'd01');
    // Placeholders filled everywhere; a cell that is the whole value takes the parameter's type.
    assert.deepEqual(plan.to_submit[1].request.parameters.Parameters.copy.parameters, { threads: { value: 2 }, label: { value: 'lbl-d02' } });
    assert.equal(plan.to_submit[1].request.parameters.Outputs.save.data[0].description, 'copy of d02');
    assert.deepEqual(await tasksNamed('d'), []);
  });

  it("runs the workflow a template from 'workflow getparam -o' names in its first line, without --workflow", async () => {
    const written = join(f.dir, 'getparam.yml');
    const got = await f.run(['workflow', 'getparam', 'copywf', '-o', written]);
    assert.equal(got.status, 0, got.stderr);
    const firstLine = readFileSync(written, 'utf8').split('\n')[0]!;
    assert.match(firstLine, /^# workflow: copywf /);
    // The user fills placeholders in; the first line stays (it is a comment: the template is still what gwc reads).
    const edited = writeFile(f.dir, 'edited.yml', `${firstLine}\n${readFileSync(template, 'utf8')}`);
    const dry = await f.run(['batch', edited, sheet('origin.tsv', 'o'), '--dry-run', '--json']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.equal(dry.json().to_submit[0].request.workflow_name, 'copywf');
    const without = await f.run(['batch', template, sheet('origin.tsv', 'o'), '--dry-run']);
    assert.equal(without.status, 2);
    assert.match(without.stderr, /which workflow\?/);
  });

  it('submits one task per row, follows them with --wait to a summary table, and skips them when run again', async () => {
    const good = sheet('good.tsv', 's');
    const result = await f.run(['batch', template, good, '--workflow', 'copywf', '--concurrency', '4', '--wait', '--interval', '0.5'], { timeoutMs: 180_000 });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^submitted 20 tasks in [\d.]+ s \([\d.]+ tasks\/s\); log: \S+good\.copywf\.submitted\.jsonl$/m);
    assert.match(result.stdout, /^ROW\s+TASK\s+TASK ID\s+STATUS\s+DURATION\s+REASON$/m);
    for (const s of SAMPLES) assert.match(result.stdout, new RegExp(`^\\s*${Number(s)}\\s+s${s}_copy\\s+[0-9a-f]{24}\\s+succeeded\\s+\\d+s`, 'm'));
    assert.match(result.stdout, /^20 tasks: 20 succeeded$/m);

    const log = logLines(join(f.dir, 'good.copywf.submitted.jsonl'));
    assert.equal(log.length, 20);
    const tasks = await tasksNamed('s');
    assert.deepEqual(
      tasks.map((t) => t.task_name).sort(),
      SAMPLES.map((s) => `s${s}_copy`),
    );
    assert.deepEqual(new Set(log.map((l) => l.task_id)), new Set(tasks.map((t) => t.task_id)), 'the log maps rows to the tasks started');
    assert.equal((await f.client.readData('/results/s07/out.fastq')).toString(), '@read07\nACGT\n+\nIIII\n');

    const again = await f.run(['batch', template, good, '--workflow', 'copywf', '--json']);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.json().already_submitted, 20);
    assert.deepEqual(again.json().submitted, []);
    assert.equal((await tasksNamed('s')).length, 20, 'nothing was submitted twice');
  });

  it('resumes a batch interrupted by the server going away: exit 3, then only the rest is submitted', async () => {
    const rows = sheet('flaky.tsv', 'f');
    const proxy = await flakyProxy(f.server.url, { failAfter: 7 });
    try {
      const cut = await f.run(['batch', template, rows, '--workflow', 'copywf', '--concurrency', '2'], { env: { GDFLOW_ENDPOINT: proxy.url } });
      assert.equal(cut.status, 3, cut.stderr);
      assert.match(cut.stderr, /run the same command again to submit them/);
      assert.equal(proxy.forwarded(), 7);
    } finally {
      await proxy.close();
    }
    const log = join(f.dir, 'flaky.copywf.submitted.jsonl');
    assert.equal(logLines(log).length, 7);
    assert.equal((await tasksNamed('f')).length, 7);

    const resumed = await f.run(['batch', template, rows, '--workflow', 'copywf', '--json']);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.equal(resumed.json().already_submitted, 7);
    assert.equal(resumed.json().submitted.length, 13);
    const tasks = await tasksNamed('f');
    assert.deepEqual(
      tasks.map((t) => t.task_name).sort(),
      SAMPLES.map((s) => `f${s}_copy`),
    );
    assert.equal(logLines(log).length, 20);
  });

  it('resumes a batch whose CLI was killed mid-way, adopting a task whose log line was lost', async () => {
    const rows = sheet('killed.tsv', 'k');
    const log = join(f.dir, 'killed.copywf.submitted.jsonl');
    // The sixth submission hangs at the proxy: the CLI is killed mid-way with exactly five logged, however fast
    // or slow this machine is (a slowed proxy and a poll of the log would leave the count to the load).
    const proxy = await flakyProxy(f.server.url, { holdAfter: 5 });
    try {
      const child = spawnCli(['batch', template, rows, '--workflow', 'copywf', '--concurrency', '1'], {
        env: { ...f.env, GDFLOW_ENDPOINT: proxy.url },
        cwd: f.dir,
      });
      const done = collect(child);
      await until('five submissions logged', () => logLines(log).length >= 5);
      child.kill('SIGKILL');
      const killed = await done;
      assert.equal(killed.signal, 'SIGKILL');
    } finally {
      await proxy.close();
    }
    const before = logLines(log);
    assert.equal(before.length, 5, 'rows logged before the kill');
    // Lose the last log line, as if the process died between the server's answer and the write.
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    writeFileSync(log, `${lines.slice(0, -1).join('\n')}\n${lines[lines.length - 1]!.slice(0, 10)}`);

    const resumed = await f.run(['batch', template, rows, '--workflow', 'copywf', '--json']);
    assert.equal(resumed.status, 0, resumed.stderr);
    const outcome = resumed.json();
    assert.equal(outcome.already_submitted, before.length - 1);
    assert.ok(
      outcome.submitted.some((e: any) => e.adopted === true && e.task_id === before[before.length - 1].task_id),
      'the task of the lost line was adopted, not started again',
    );
    const tasks = await tasksNamed('k');
    assert.deepEqual(
      tasks.map((t) => t.task_name).sort(),
      SAMPLES.map((s) => `k${s}_copy`),
      'every row has exactly one task',
    );
    assert.equal(new Set(logLines(log).map((e) => e.key)).size, 20);
  });
});
