/**
 * How the executors find a job's processes without reading all of /proc per job (proctree.ts, proc-scan.ts) and
 * spread the work over the event loop (turn-budget.ts), with real processes.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { scanProcesses } from '../../src/engine/executors/process/tracking/proc-scan.js';
import { descendants, procChildrenSupported, readProc } from '../../src/engine/executors/process/tracking/proctree.js';
import { budgeted } from '../../src/engine/executors/process/tracking/turn-budget.js';
import { liveProcesses } from '../helpers/processes.js';

const marker = `${process.pid}${Date.now() % 100000}`;
const sleeps = (): Promise<number[]> => liveProcesses((cmdline) => cmdline.startsWith('sleep ') && cmdline.includes(marker));

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("finding a job's processes", () => {
  let root: ChildProcess;
  before(async () => {
    // A background child, a setsid child, and a double-forked setsid grandchild that leaves the tree; all carry
    // the marker variable, as a host job's processes carry GDFLOW_JOB_TOKEN.
    root = spawn('/bin/sh', ['-c', `sleep 1${marker} & setsid sleep 2${marker} & (setsid sleep 3${marker} &); echo started; wait`], {
      env: { PATH: '/usr/bin:/bin', GDFLOW_TEST_MARK: marker },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => root.stdout!.once('data', () => resolve()));
    await until(async () => (await sleeps()).length === 3, 'the three sleeps');
  });
  after(async () => {
    for (const pid of await sleeps()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    root.kill('SIGKILL');
  });

  it("this kernel has the children files (CONFIG_PROC_CHILDREN), as Debian's does", () => {
    assert.equal(procChildrenSupported(), true);
  });

  it('descendants() walks the tree through the children files: the root, its background and setsid children, not what left the tree', async () => {
    const found = descendants(root.pid!);
    assert.equal(found[0]?.pid, root.pid);
    const all = await sleeps();
    const escaped = all.filter((pid) => readProc(pid)?.ppid !== root.pid);
    assert.equal(escaped.length, 1, 'the double-forked sleep was reparented');
    assert.deepEqual(
      found
        .slice(1)
        .map((p) => p.pid)
        .sort(),
      all.filter((pid) => !escaped.includes(pid)).sort(),
    );
    assert.deepEqual(descendants(2 ** 22 + 1), [], 'a pid that cannot exist has no tree');
  });

  it('a scan of /proc gives the same tree, and finds every process carrying a marker, including the escaped one', async () => {
    const table = await scanProcesses('GDFLOW_TEST_MARK');
    assert.deepEqual(
      table
        .tree(root.pid!)
        .map((p) => p.pid)
        .sort(),
      descendants(root.pid!)
        .map((p) => p.pid)
        .sort(),
    );
    const marked = table.withEnv(`GDFLOW_TEST_MARK=${marker}`).map((p) => p.pid);
    for (const pid of [root.pid!, ...(await sleeps())]) assert.ok(marked.includes(pid), `${pid} found by its marker`);
    assert.deepEqual(table.withEnv('GDFLOW_TEST_MARK=other'), []);
    assert.deepEqual(table.withEnv(`GDFLOW_TEST_MARK_NOT_ASKED=${marker}`), []);
  });

  it('callers of the same turn share one scan; a caller after it gets a scan of its own', async () => {
    const first = scanProcesses();
    const second = scanProcesses('GDFLOW_TEST_MARK');
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a, b, 'one table for both');
    assert.ok(a.withEnv(`GDFLOW_TEST_MARK=${marker}`).length >= 3, 'with the marker either of them asked for');
    assert.notEqual(await scanProcesses(), a);
  });
});

describe('budgeted work', () => {
  it('runs pieces in order and gives each its result or its error', async () => {
    const order: number[] = [];
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => budgeted(() => (order.push(i), i * 2))));
    assert.deepEqual(
      order,
      Array.from({ length: 200 }, (_, i) => i),
    );
    assert.deepEqual(
      results,
      order.map((i) => i * 2),
    );
    await assert.rejects(
      budgeted(() => {
        throw new Error('piece failed');
      }),
      /piece failed/,
    );
  });

  const busy = (ms: number): void => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };

  it('lets the event loop turn between long pieces: a timer set by the first fires before the last one runs', async () => {
    let fired = -1;
    let ran = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        budgeted(() => {
          if (i === 0) setTimeout(() => (fired = ran), 0);
          busy(3);
          ran++;
        }),
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    assert.ok(fired > 0 && fired < 20, `the timer fired after ${fired} of 20 pieces`);
  });

  it("counts what runs on a piece's result against the budget too", async () => {
    let fired = -1;
    let ran = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        budgeted(() => undefined).then(() => {
          if (i === 0) setTimeout(() => (fired = ran), 0);
          busy(3);
          ran++;
        }),
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    assert.ok(fired > 0 && fired < 20, `the timer fired after ${fired} of 20 continuations`);
  });
});
