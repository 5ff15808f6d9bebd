/**
 * The sandbox's limits with real QuickJS: time, memory, stack and result size; a worker that stops answering is
 * replaced; the server's event loop keeps running while an expression spins; the pool stays usable after each.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { JavaScriptError, type EvaluationRequest, type Json } from '../../../src/domain/cwl/expressions/index.js';
import { JavaScriptSandbox } from '../../../src/engine/js-sandbox/index.js';

const sandboxes: JavaScriptSandbox[] = [];
after(() => Promise.all(sandboxes.map((sandbox) => sandbox.close())));
const open = (options: ConstructorParameters<typeof JavaScriptSandbox>[0]): JavaScriptSandbox => {
  const sandbox = new JavaScriptSandbox(options);
  sandboxes.push(sandbox);
  return sandbox;
};

const body = (code: string): EvaluationRequest => ({ kind: 'body', code, context: { inputs: { n: 20 }, self: null, runtime: {} }, expressionLib: [] });

async function rejection(sandbox: JavaScriptSandbox, code: string): Promise<JavaScriptError> {
  try {
    await sandbox.evaluate(body(code));
  } catch (error) {
    assert.ok(error instanceof JavaScriptError, String(error));
    return error;
  }
  assert.fail(`${code} evaluated without error`);
}

/** The pool answers the next evaluation after a failure. */
const stillWorks = async (sandbox: JavaScriptSandbox): Promise<void> => assert.equal(await sandbox.evaluate(body('return inputs.n + 1;')), 21);

describe('JavaScript sandbox limits', () => {
  it('stops an endless loop at the time limit, even one that catches what it can', async () => {
    const sandbox = open({ workers: 1, timeLimitMs: 500 });
    const error = await rejection(sandbox, 'while (true) {}');
    assert.equal(error.message, 'the expression exceeded its 0.5 s time limit');
    assert.equal(error.limit, 'time');
    assert.equal((await rejection(sandbox, 'for (;;) { try { while (true) {} } catch (e) {} }')).limit, 'time');
    await stillWorks(sandbox);
  });

  it('refuses more memory than its limit, whether allocated at once or little by little', async () => {
    // A long time limit, so that a loaded machine reaches the memory limit first.
    const sandbox = open({ workers: 1, timeLimitMs: 60_000, memoryLimitBytes: 64 * 1024 * 1024 });
    const piecemeal = await rejection(sandbox, 'var keep = []; for (;;) keep.push(new Array(1 << 16).fill(inputs.n));');
    assert.equal(piecemeal.message, 'the expression ran out of its 64 MiB memory limit');
    assert.equal(piecemeal.limit, 'memory');
    await stillWorks(sandbox);
    assert.equal((await rejection(sandbox, 'return "x".repeat(1 << 28).length;')).limit, 'memory');
    assert.equal((await rejection(sandbox, 'var keep = []; for (;;) keep.push(new Uint8Array(1 << 20));')).limit, 'memory');
    await stillWorks(sandbox);
  });

  it('stops deep recursion at the stack limit, and fails inputs nested too deeply to be written as JSON', async () => {
    const sandbox = open({ workers: 1 });
    const error = await rejection(sandbox, 'function down(n) { return down(n + 1) + 1; } return down(0);');
    assert.match(error.message, /^the expression recursed too deep for its 512 KiB stack \(InternalError: stack overflow\)$/);
    assert.equal(error.limit, 'stack');
    let nested: Json = 1;
    for (let i = 0; i < 10_000; i++) nested = [nested];
    const deep = { ...body('return 1;'), context: { inputs: { nested }, self: null, runtime: {} } };
    const tooDeep = (thrown: unknown): boolean => thrown instanceof JavaScriptError && /cannot be given to the expression/.test(thrown.message);
    await assert.rejects(sandbox.evaluate(deep), tooDeep);
    await stillWorks(sandbox);
  });

  it('refuses a result whose JSON is longer than its limit', async () => {
    const sandbox = open({ workers: 1, resultLimitChars: 1000 });
    const error = await rejection(sandbox, 'return "x".repeat(2000);');
    assert.equal(error.message, "the expression's value is 2002 characters of JSON, more than the 1000 allowed");
    assert.equal(error.limit, 'result');
    await stillWorks(sandbox);
  });

  it('terminates and replaces a worker stuck in a built-in that QuickJS cannot interrupt', async () => {
    // Sorting three million numbers as strings is one call into C of about two seconds here: far more than 0.1 s
    // plus a 0.3 s grace even on a faster machine. Its ~170 MB of sort slots and strings sit well inside a 1 GiB
    // memory limit, so that it is time, not memory, that stops it (at 256 MiB, 1e7 numbers ran out of memory first).
    const sandbox = open({ workers: 1, timeLimitMs: 100, graceMs: 300, memoryLimitBytes: 1024 * 1024 * 1024 });
    const error = await rejection(sandbox, 'return new Array(3e6).fill(12345.678).sort().length;');
    assert.equal(error.message, 'the expression exceeded its 0.1 s time limit (its worker did not stop and was replaced)');
    await stillWorks(sandbox);
  });

  it("keeps the server's event loop turning while an expression spins for 2 s", async () => {
    const sandbox = open({ workers: 1 });
    await stillWorks(sandbox); // the worker is started, so that only the spin is measured
    let last = performance.now();
    let longestGap = 0;
    let ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
    }, 10);
    const started = performance.now();
    const spun = await sandbox.evaluate(body('var end = Date.now() + 2000; var turns = 0; while (Date.now() < end) turns++; return turns > 0;'));
    const spinMs = performance.now() - started;
    clearInterval(timer);
    assert.equal(spun, true);
    assert.ok(spinMs >= 1900, `the spin took ${spinMs} ms`);
    // A blocked loop would show one gap as long as the spin; a turning one shows many short ones.
    assert.ok(longestGap < spinMs / 2, `the longest gap between ticks was ${longestGap.toFixed(0)} ms of a ${spinMs.toFixed(0)} ms spin`);
    assert.ok(ticks >= 10, `only ${ticks} ticks in ${spinMs.toFixed(0)} ms`);
  });

  it('evaluates on another worker while one spins, and rejects everything once closed', async () => {
    const sandbox = new JavaScriptSandbox({ workers: 2, timeLimitMs: 10_000 });
    const spin = sandbox.evaluate(body('var end = Date.now() + 3000; while (Date.now() < end) {} return "spun";'));
    let spinDone = false;
    void spin.then(
      () => (spinDone = true),
      () => undefined,
    );
    assert.equal(await sandbox.evaluate(body('return "quick";')), 'quick');
    assert.equal(spinDone, false, 'the quick one did not wait for the spin');
    const closing = sandbox.close();
    await assert.rejects(spin, (error: unknown) => error instanceof Error && !(error instanceof JavaScriptError) && /closed/.test(error.message));
    await closing;
    await assert.rejects(sandbox.evaluate(body('return 1;')), /the JavaScript sandbox is closed/);
  });

  it('does not hold the process open once its evaluations are done', () => {
    const module = new URL('../../../src/engine/js-sandbox/index.js', import.meta.url).href;
    const script = `import { JavaScriptSandbox } from ${JSON.stringify(module)};
      const sandbox = new JavaScriptSandbox();
      const value = await sandbox.evaluate({ kind: 'expression', code: '6 * 7', context: { inputs: {}, self: null, runtime: {} }, expressionLib: [] });
      console.log(value);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.error, undefined, 'the process exited by itself, without close()');
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), '42');
  });

  it('refuses options out of range, all of them at once', () => {
    assert.throws(
      () => new JavaScriptSandbox({ timeLimitMs: 0, workers: 0, memoryLimitBytes: 1.5 }),
      /JavaScript sandbox options: timeLimitMs must be an integer from 1 to 3600000, not 0; memoryLimitBytes .*, not 1.5; workers .*, not 0/,
    );
  });
});
