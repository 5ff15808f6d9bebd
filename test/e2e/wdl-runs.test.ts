/**
 * WDL runs through a real server (docs/wdl.md, "Running WDL"): a workflow with a scatter, an if and a task call
 * started with the WDL run service (the `wdl/tasks/` routes' entry point), run to its end by the engine's WDL resolver
 * on the host executor, followed and read back over HTTP: the task and its jobs through the GeneDock task routes, the
 * outputs through the data routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Scope } from '../../src/domain/tools/service.js';
import { scopeOf } from '../helpers/wdl.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { download, upload, waitForTask } from '../helpers/tasks.js';

let server: TestServer;
let alice: TestAccount;
let scope: Scope;

before(async () => {
  server = await startTestServer({ cpus: 2, executor: 'host' });
  alice = await server.account();
  scope = await scopeOf(server, alice);
});
after(async () => server.close());

const WORKFLOW = `version 1.1

task count {
  input {
    File lines
    String word
  }
  command <<<
    grep -c "~{word}" ~{lines} || true
    echo "~{word}" > word.txt
  >>>
  output {
    Int n = read_int(stdout())
    File echoed = "word.txt"
  }
}

workflow words {
  input {
    File lines
    Array[String] words
    Boolean summarize = true
  }
  scatter (w in words) {
    call count { input: lines = lines, word = w }
  }
  if (summarize) {
    Int total = length(count.n)
  }
  if (!summarize) {
    Int never = 1
  }
  output {
    Array[Int] counts = count.n
    Int? total_out = total
    Int? never_out = never
    Array[File] echoed = count.echoed
  }
}
`;

async function jobsOf(taskId: string): Promise<{ node_id: string; status: string }[]> {
  const { jobs } = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${taskId}/jobs/`));
  return jobs;
}

describe('WDL runs', () => {
  it('a scatter, an if and a skipped if run to their end; outputs in output_dir', async () => {
    await upload(alice, '/home/admin/wdl/lines.txt', 'apple pie\nbanana\napple\n$(touch /tmp/pwned)\n');
    const inputs = { 'words.lines': `${alice.name}:/home/admin/wdl/lines.txt`, 'words.words': ['apple', 'banana', 'cherry', "it's $(id) `x`"] };
    const started = await server.services.wdlRuns.start(scope, { sources: { main: WORKFLOW }, inputs, outputDir: `${alice.name}:/home/admin/wdl-out/` });
    const task = await waitForTask(alice, started.task_id, { timeoutMs: 120_000 });
    const jobs = await jobsOf(started.task_id);
    assert.equal(task.status, 'succeeded', `${task.reason} ${JSON.stringify(jobs.map((j) => [j.node_id, j.status]))}`);
    const result = await server.services.wdlRuns.outputs(scope, started.task_id);
    assert.deepEqual(result.outputs!['words.counts'], [2, 1, 0, 0]);
    assert.equal(result.outputs!['words.total_out'], 4);
    assert.equal(result.outputs!['words.never_out'], null);
    const echoed = result.outputs!['words.echoed'] as string[];
    assert.equal(echoed.length, 4);
    assert.match(echoed[0]!, new RegExp(`^${alice.name}:/home/admin/wdl-out/word\\.txt$`));
    // The value with quotes, $() and backquotes is written as it is, not run.
    assert.equal(await download(alice, echoed[3]!.slice(alice.name.length + 1)), "it's $(id) `x`\n");
    const states = new Map(jobs.map((j) => [j.node_id, j.status]));
    assert.equal(states.get('main'), 'succeeded');
    assert.ok(
      [...states].some(([id, status]) => /count/.test(id) && status === 'succeeded'),
      JSON.stringify([...states]),
    );
    assert.ok([...states.values()].includes('skipped'), 'the false if is skipped');
  });

  it('an input value cannot inject into the command', async () => {
    const doc = `version 1.0
task t {
  input { String s }
  command <<<
    echo ~{s}
    echo '~{s}'
    echo "~{s}"
  >>>
  output { Array[String] out = read_lines(stdout()) }
}`;
    const evil = `x'; echo INJECTED; ' $(echo INJECTED) \`echo INJECTED\` " ; echo INJECTED #`;
    const started = await server.services.wdlRuns.start(scope, { sources: { main: doc }, inputs: { 't.s': evil }, outputDir: '/home/admin/inj/' });
    const task = await waitForTask(alice, started.task_id, { timeoutMs: 60_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const result = await server.services.wdlRuns.outputs(scope, started.task_id);
    assert.deepEqual(result.outputs!['t.out'], [evil, evil, evil]);
  });

  it('an input default that reads a call, outputs that read each other, files read by the workflow, File keys of a Map', async () => {
    // The spec's input_ref_call, test_struct and read_person examples, and serde_pair's Map[File, Int] input.
    const doc = `version 1.1
struct Person { String name  Int age }
task double {
  input { Int int_in }
  command <<< echo ~{int_in * 2} >>>
  output { Int out = int_in * 2  File printed = stdout() }
}
workflow w {
  input {
    Int x
    Int y = d1.out
    File person
    Map[File, Int] counts
  }
  call double as d1 { input: int_in = x }
  call double as d2 { input: int_in = y }
  scatter (pair in as_pairs(counts)) {
    Int first = read_int(pair.left)
  }
  output {
    Int result = d2.out
    String printed = read_string(d2.printed)
    Person p = read_json(person)
    Boolean adult = p.age >= 18
    Array[Int] firsts = first
  }
}`;
    await upload(alice, '/home/admin/wdl/person.json', '{"name": "John", "age": 42}');
    await upload(alice, '/home/admin/wdl/seven.txt', '7\n');
    const inputs = { 'w.x': 5, 'w.person': '/home/admin/wdl/person.json', 'w.counts': { '/home/admin/wdl/seven.txt': 1 } };
    const started = await server.services.wdlRuns.start(scope, { sources: { main: doc }, inputs, outputDir: '/home/admin/late/' });
    const task = await waitForTask(alice, started.task_id, { timeoutMs: 60_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const { outputs } = await server.services.wdlRuns.outputs(scope, started.task_id);
    assert.equal(outputs!['w.result'], 20);
    assert.equal(outputs!['w.printed'], '20');
    assert.deepEqual(outputs!['w.p'], { name: 'John', age: 42 });
    assert.equal(outputs!['w.adult'], true);
    assert.deepEqual(outputs!['w.firsts'], [7]);
  });

  it("a workflow's expressions read no file outside the run's inputs and outputs", async () => {
    const doc = 'version 1.1\nworkflow w {\n  output { String secret = read_string("/etc/hostname") }\n}';
    const started = await server.services.wdlRuns.start(scope, { sources: { main: doc }, inputs: {}, outputDir: '/home/admin/secret/' });
    const task = await waitForTask(alice, started.task_id, { timeoutMs: 60_000 });
    assert.equal(task.status, 'failed');
    assert.match(JSON.stringify(await jobsOf(started.task_id)) + task.reason, /is not a file of this run/);
  });

  it('a bad document or input is refused naming where', async () => {
    await assert.rejects(
      server.services.wdlRuns.start(scope, { sources: { main: 'version 1.1\nworkflow w {\n  Int x = y\n}\n' }, inputs: {}, outputDir: '/o/' }),
      /main\.wdl:3:11: 'y' is not declared/,
    );
    await assert.rejects(
      server.services.wdlRuns.start(scope, { sources: { main: WORKFLOW }, inputs: { 'words.nope': 1 }, outputDir: '/o/' }),
      /inputs\.words\.nope is not an input/,
    );
    await assert.rejects(
      server.services.wdlRuns.start(scope, { sources: { main: WORKFLOW }, inputs: { 'words.words': 'x' }, outputDir: '/o/' }),
      /words\.words/,
    );
  });
});
