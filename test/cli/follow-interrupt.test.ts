import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MissingComponent, componentsRequired, skipWithout } from '../helpers/components.js';
import { cliFixture, collect, commandWorkflow, noTerminal, spawnCli, spawnCliInTerminal, untilJobRuns, waitForOutput, type CliFixture } from './support.js';

let f: CliFixture;

before(async () => {
  f = await cliFixture();
  // A job that talks on both streams with a pause, ending its last line without a newline.
  await commandWorkflow(f, 'talker', 'echo first line; echo first error >&2; sleep 1; echo second line; echo done > {{ outputs.out[0].path }}; printf tail');
  await commandWorkflow(f, 'chatty', 'echo first line; echo first error >&2; sleep 300; echo done > {{ outputs.out[0].path }}');
  // A job that runs until it is stopped.
  await commandWorkflow(f, 'patient', 'sleep 300; echo done > {{ outputs.out[0].path }}');
  await commandWorkflow(f, 'quick', 'echo quick > {{ outputs.out[0].path }}');
});
after(async () => f.close());

const started = async (workflow: string): Promise<string> => {
  const run = await f.run(['workflow', 'run', workflow, '--json']);
  assert.equal(run.status, 0, run.stderr);
  return run.json().task_id as string;
};

describe('gdflow task logs --follow', () => {
  it("prints a running job's lines as they are written, and ends when the job does", async () => {
    const taskId = await started('chatty');
    const follower = spawnCli(['task', 'logs', taskId, 'work', '--follow', '--interval', '0.2'], { env: f.env, cwd: f.dir });
    const ended = collect(follower);
    // The job sleeps after its first lines: they were followed while it ran.
    await waitForOutput(follower, /first error\n/);
    assert.equal((await f.client.listJobs(taskId)).jobs.find((j) => j.node_id === 'work')!.status, 'running');
    assert.equal((await f.run(['task', 'stop', taskId])).status, 0);
    const result = await ended;
    assert.equal(result.status, 0, result.stderr);
    // Each look prints the new whole lines of stdout, then of stderr.
    assert.equal(result.stdout, 'first line\nfirst error\n');
    assert.match(result.stderr, /^work: cancelled$/m);
  });

  it("follows every job of a task with its node's name before each line, and prints an unfinished last line at the end", async () => {
    const taskId = await started('talker');
    const every = await f.run(['task', 'logs', taskId, '-f', '--interval', '0.2']);
    assert.equal(every.status, 0, every.stderr);
    const lines = every.stdout.split('\n').slice(0, -1);
    // stdout's lines in their order, stderr's wherever a look found them.
    assert.deepEqual(
      lines.filter((l) => l !== 'work | first error'),
      ['work | first line', 'work | second line', 'work | tail'],
    );
    assert.equal(lines.length, 4, every.stdout);
    assert.match(every.stderr, /^work: succeeded, save: succeeded$/m);
    // Of an ended job, the whole log at once: stdout, then stderr.
    const ended = await f.run(['task', 'logs', taskId, 'work', '--follow']);
    assert.equal(ended.stdout, 'first line\nsecond line\ntail\nfirst error\n');
  });

  it('reads the log link by byte ranges: 206 from an offset, 416 with the size past the end, the whole log without a range', async () => {
    const taskId = await started('talker');
    await f.client.waitForTask(taskId, { intervalMs: 200 });
    const work = (await f.client.listJobs(taskId)).jobs.find((j) => j.node_id === 'work')!;
    const url = new URL((await f.client.getJob(taskId, work.job_id)).Log_downloadURL);
    url.searchParams.set('stream', 'stdout');
    const whole = await fetch(url);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('accept-ranges'), 'bytes');
    assert.equal(await whole.text(), 'first line\nsecond line\ntail');
    const from = await fetch(url, { headers: { Range: 'bytes=6-' } });
    assert.equal(from.status, 206);
    assert.equal(from.headers.get('content-range'), 'bytes 6-26/27');
    assert.equal(await from.text(), 'line\nsecond line\ntail');
    const span = await fetch(url, { headers: { Range: 'bytes=0-4' } });
    assert.equal(span.status, 206);
    assert.equal(await span.text(), 'first');
    const past = await fetch(url, { headers: { Range: 'bytes=27-' } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), 'bytes */27');
    assert.equal(((await past.json()) as { error_code: string }).error_code, 'InvalidRange');
    // Both streams, stdout first: the range is over the two as one text.
    url.searchParams.delete('stream');
    const both = await fetch(url, { headers: { Range: 'bytes=23-' } });
    assert.equal(both.status, 206);
    assert.equal(await both.text(), 'tailfirst error\n');
    const odd = await fetch(url, { headers: { Range: 'lines=1-2' } });
    assert.equal(odd.status, 200, 'a range that is not bytes=N-M is ignored: the whole log');
    assert.equal(await odd.text(), 'first line\nsecond line\ntailfirst error\n');
  });
});

describe('gdflow task stop and task rerun --wait', () => {
  it('task rerun --wait follows the new task to its end', async () => {
    const first = await f.run(['workflow', 'run', 'quick', '--wait', '--interval', '0.2', '--json']);
    assert.equal(first.status, 0, first.stderr);
    const rerun = await f.run(['task', 'rerun', first.json().task_id, '--wait', '--interval', '0.2']);
    assert.equal(rerun.status, 0, rerun.stderr);
    assert.match(
      rerun.stderr,
      new RegExp(`started task [0-9a-f]{24} \\(quick_1_\\d{14}_[0-9a-f]{24}_rerun_\\d{14}_[0-9a-f]{24}\\), reusing what it can of ${first.json().task_id}`),
    );
    assert.match(rerun.stdout, /^task quick_1_\d{14}_[0-9a-f]{24}_rerun_\d{14}_[0-9a-f]{24} \([0-9a-f]{24}\) succeeded after \d+s: 2\/2 nodes done$/m);
  });

  it('task stop of an unknown task names it and the nearest task', async () => {
    const taskId = await started('quick');
    await f.client.waitForTask(taskId, { intervalMs: 200 });
    const typo = `${taskId.slice(0, 23)}${taskId[23] === '0' ? '1' : '0'}`;
    const stop = await f.run(['task', 'stop', typo]);
    assert.equal(stop.status, 1);
    assert.match(stop.stderr, new RegExp(`task '${typo}' not found in ${f.account.name}/default; did you mean ${taskId} \\(quick_1_\\d{14}_${taskId}\\)\\?`));
    const byName = await f.run(['task', 'get', (await f.client.getTask(taskId)).task_name]);
    assert.equal(byName.status, 2);
    assert.match(byName.stderr, new RegExp(`is a task name; task commands take the task id: ${taskId}`));
  });
});

describe('Ctrl-C while following a task', () => {
  const noScript = noTerminal();

  const onTerminal = 'in task wait on a terminal: the bar stops, the cursor is shown again, the task keeps running and the way to follow it is said; exit 130';
  it(onTerminal, { skip: skipWithout(noScript) }, async () => {
    if (noScript && componentsRequired()) throw new MissingComponent(noScript);
    const taskId = await started('patient');
    await untilJobRuns(f, taskId, 'work');
    const child = spawnCliInTerminal(['task', 'wait', taskId, '--interval', '0.2'], { env: f.env, cwd: f.dir });
    const ended = collect(child, undefined, 60_000, true);
    // The bar is on the terminal (the cursor hidden) and has shown the running job: press Ctrl-C.
    await waitForOutput(child, /running: work/);
    child.stdin!.write('\x03');
    const result = await ended;
    assert.equal(result.status, 130, result.stdout);
    const hidden = result.stdout.indexOf('\x1b[?25l');
    const shown = result.stdout.lastIndexOf('\x1b[?25h');
    assert.ok(hidden >= 0, 'the bar hid the cursor');
    assert.ok(shown > hidden, 'and showed it again');
    const message = result.stdout.slice(shown);
    const firstLine = new RegExp(`\\n[^\\n]*gdflow: interrupted: task patient_1_\\d{14}_${taskId} \\(${taskId}\\) keeps running on the server\\r?\\n`);
    assert.match(message, firstLine, 'the message starts on a line of its own');
    assert.match(message, new RegExp(`follow it: gdflow task wait ${taskId}`));
    assert.match(message, new RegExp(`its logs: +gdflow task logs ${taskId} --follow`));
    assert.match(message, new RegExp(`stop it: +gdflow task stop ${taskId}`));
    assert.equal((await f.client.getTask(taskId)).status, 'running', 'Ctrl-C stopped the following, not the task');
    assert.equal((await f.run(['task', 'stop', taskId])).status, 0);
  });

  it('in workflow run --wait with pipes: no terminal codes, the same message; exit 130', async () => {
    const child = spawnCli(['workflow', 'run', 'patient', '--wait', '--interval', '0.2', '--project', 'default'], { env: f.env, cwd: f.dir });
    const ended = collect(child);
    const progress = await waitForOutput(child, /running: work/, { stderr: true });
    const taskId = /started: ([0-9a-f]{24})/.exec(progress)![1]!;
    child.kill('SIGINT');
    const result = await ended;
    assert.equal(result.status, 130, result.stderr);
    assert.ok(!result.stderr.includes('\x1b['), 'no terminal codes on a pipe');
    const said = `interrupted: task patient_1_\\d{14}_${taskId} \\(${taskId}\\) keeps running on the server\\n  follow it: gdflow task wait ${taskId} --project default\\n`;
    assert.match(result.stderr, new RegExp(said));
    assert.equal((await f.client.getTask(taskId)).status, 'running');
    const stop = await f.run(['task', 'stop', taskId]);
    assert.equal(stop.status, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`\\(${taskId}\\) stopped after`));
  });
});
