/**
 * Files in WDL runs beyond a plain File input (docs/wdl.md, "Running WDL"), through a real server on the host
 * executor: Files inside a struct, an array, a map and a pair given as inputs are found in the data store and staged
 * for the task that reads them; a workflow's own expressions read files (read_lines of an input and of a call's
 * output in a scatter's collection, size, write_lines), and only the run's own files.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Scope } from '../../src/domain/tools/service.js';
import { scopeOf } from '../helpers/wdl.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { upload, waitForTask } from '../helpers/tasks.js';

let server: TestServer;
let alice: TestAccount;
let scope: Scope;

before(async () => {
  server = await startTestServer({ cpus: 2, executor: 'host' });
  alice = await server.account();
  scope = await scopeOf(server, alice);
});
after(async () => server.close());

/** Run a document to its end; its outputs, or a failure with its jobs' states. */
async function run(main: string, inputs: Record<string, unknown>, outputDir: string) {
  const started = await server.services.wdlRuns.start(scope, { sources: { main }, inputs, outputDir });
  const task = await waitForTask(alice, started.task_id, { timeoutMs: 120_000 });
  const { jobs } = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${started.task_id}/jobs/`));
  const states = JSON.stringify(jobs.map((j: any) => [j.node_id, j.status, j.reason]));
  return { task, states, result: await server.services.wdlRuns.outputs(scope, started.task_id) };
}

const NESTED = `version 1.1

struct Sample {
  String name
  File reads
  Array[File] extra
}

task show {
  input {
    Sample s
    Map[String, File] m
    Pair[File, Int] p
  }
  command <<<
    cat ~{s.reads} ~{sep=" " s.extra}
    cat ~{m["k"]}
    cat ~{p.left}
  >>>
  output {
    Array[String] lines = read_lines(stdout())
  }
}

workflow nested {
  input {
    Sample s
    Map[String, File] m
    Pair[File, Int] p
  }
  call show { input: s = s, m = m, p = p }
  output {
    Array[String] lines = show.lines
    String name = s.name
  }
}
`;

const READS = `version 1.1

task make {
  command <<<
    printf 'x\\ny\\n' > list.txt
  >>>
  output {
    File list = "list.txt"
  }
}

task up {
  input {
    String x
  }
  command <<<
    echo ~{x} | tr a-z A-Z
  >>>
  output {
    String y = read_string(stdout())
  }
}

workflow reads {
  input {
    File names
  }
  Array[String] given = read_lines(names)
  Int bytes = ceil(size(names))
  call make
  scatter (x in read_lines(make.list)) {
    call up { input: x = x }
  }
  Array[String] back = read_lines(write_lines(given))
  output {
    Array[String] ups = up.y
    Array[String] given_out = given
    Int n = bytes
    Array[String] written = back
    Int listed = length(read_lines(make.list))
  }
}
`;

describe('WDL files', () => {
  it('Files inside a struct, an array, a map and a pair given as inputs are staged for the task', async () => {
    for (const [name, text] of Object.entries({
      'r.fq': 'reads\n',
      'e1.txt': 'extra one\n',
      'e2.txt': 'extra two\n',
      'm.txt': 'mapped\n',
      'p.txt': 'paired\n',
    })) {
      await upload(alice, `/home/admin/nested/${name}`, text);
    }
    const at = (name: string) => `${alice.name}:/home/admin/nested/${name}`;
    const inputs = {
      'nested.s': { name: 'S1', reads: at('r.fq'), extra: [at('e1.txt'), '/home/admin/nested/e2.txt'] },
      'nested.m': { k: at('m.txt') },
      'nested.p': { left: at('p.txt'), right: 3 },
    };
    const { task, states, result } = await run(NESTED, inputs, '/home/admin/nested-out/');
    assert.equal(task.status, 'succeeded', `${task.reason} ${states}`);
    assert.deepEqual(result.outputs!['nested.lines'], ['reads', 'extra one', 'extra two', 'mapped', 'paired']);
    assert.equal(result.outputs!['nested.name'], 'S1');
  });

  it('a File inside a struct that is not in the data store is refused naming the member', async () => {
    await assert.rejects(
      server.services.wdlRuns.start(scope, {
        sources: { main: NESTED },
        inputs: { 'nested.s': { name: 'S1', reads: '/home/admin/nested/none.fq', extra: [] }, 'nested.m': {}, 'nested.p': { left: '/x', right: 1 } },
        outputDir: '/home/admin/o/',
      }),
      /inputs\.nested\.s\.reads: there is no file/,
    );
  });

  it("a workflow's own expressions read its input Files and its calls' outputs", async () => {
    await upload(alice, '/home/admin/reads/names.txt', 'ann\nbob\n');
    const { task, states, result } = await run(READS, { 'reads.names': `${alice.name}:/home/admin/reads/names.txt` }, '/home/admin/reads-out/');
    assert.equal(task.status, 'succeeded', `${task.reason} ${states}`);
    assert.deepEqual(result.outputs!['reads.ups'], ['X', 'Y']);
    assert.deepEqual(result.outputs!['reads.given_out'], ['ann', 'bob']);
    assert.equal(result.outputs!['reads.n'], 8);
    assert.deepEqual(result.outputs!['reads.written'], ['ann', 'bob']);
    assert.equal(result.outputs!['reads.listed'], 2);
  });

  it("a workflow's expressions cannot read a file that is not the run's", async () => {
    const doc = `version 1.1
workflow peek {
  File secret = "/etc/hostname"
  Array[String] lines = read_lines(secret)
  output { Int n = length(lines) }
}
`;
    const { task } = await run(doc, {}, '/home/admin/peek-out/');
    assert.equal(task.status, 'failed');
    const { jobs } = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${task.task_id}/jobs/`));
    const failed = jobs.find((j: any) => j.status === 'failed');
    assert.match(failed?.reason ?? '', /\/etc\/hostname is not a file of this run/);
  });
});
