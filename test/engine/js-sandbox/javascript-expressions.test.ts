/**
 * CWL JavaScript in the real sandbox (QuickJS in WebAssembly on worker threads): the CWL context, expressionLib,
 * how values cross as JSON, what the code can reach, and that nothing one evaluation does is seen by the next.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { evaluateExpression, ExpressionError, JavaScriptError, type ExpressionContext, type Json } from '../../../src/domain/cwl/expressions/index.js';
import { JavaScriptSandbox } from '../../../src/engine/js-sandbox/index.js';

const sandbox = new JavaScriptSandbox({ workers: 1 });
after(() => sandbox.close());

const context: ExpressionContext = {
  inputs: {
    reads: { class: 'File', basename: 'sample_R1.fastq.gz', nameroot: 'sample_R1.fastq', size: 1024 },
    threads: 4,
    samples: ['a', 'b', 'c'],
    prefix: null,
  },
  self: [{ class: 'File', basename: 'out.bam', contents: '42\n' }],
  runtime: { outdir: '/var/out', tmpdir: '/tmp/t', cores: 2, ram: 1024 },
};

const LIB = [
  'function stem(file) { return file.basename.replace(/\\.fastq(\\.gz)?$/, ""); }',
  'var SUFFIX = ".bam"; function outputName() { return stem(inputs.reads) + SUFFIX; }',
];

const run = (text: string, expressionLib: string[] = LIB, on: ExpressionContext = context): Promise<Json> =>
  evaluateExpression(text, on, { javascript: { evaluator: sandbox, expressionLib } });

async function failure(text: string, expressionLib: string[] = []): Promise<ExpressionError> {
  try {
    await run(text, expressionLib);
  } catch (error) {
    assert.ok(error instanceof ExpressionError, `${text}: ${String(error)}`);
    assert.ok(error.cause instanceof JavaScriptError);
    return error;
  }
  assert.fail(`${text} evaluated without error`);
}

describe('JavaScript expressions in the sandbox', () => {
  it('evaluates $(...) as an expression and ${...} as a function body over inputs, self and runtime', async () => {
    assert.equal(await run('$(inputs.threads * 2)'), 8);
    assert.equal(await run('$(self[0].contents.trim())'), '42');
    assert.equal(await run('$(runtime.cores + runtime.ram)'), 1026);
    const loop = '${ var out = []; for (var i = 0; i < inputs.samples.length; i++) out.push(inputs.samples[i] + i); return out; }';
    assert.deepEqual(await run(loop), ['a0', 'b1', 'c2']);
    assert.deepEqual(await run('$({"name": inputs.reads.nameroot, "n": inputs.samples.length})'), { name: 'sample_R1.fastq', n: 3 });
    assert.equal(await run('$(inputs.prefix === null ? "none" : inputs.prefix)'), 'none');
    assert.equal(await run('$(inputs.samples.map(function (s) { return s.toUpperCase(); }).join(","))'), 'A,B,C');
    assert.equal(await run('$([1, 2, 3].includes(2) && `t${1 + 1}`)'), 't2', 'later ECMAScript works too');
  });

  it('interpolates JavaScript values and parameter references into text', async () => {
    assert.equal(await run('-t $(inputs.threads - 1) -o $(runtime.outdir)/$(outputName())'), '-t 3 -o /var/out/sample_R1.bam');
    assert.equal(await run('sizes=${ return [inputs.reads.size, null]; }'), 'sizes=[1024, null]');
    assert.deepEqual(await run('$(inputs.samples.slice(1))'), ['b', 'c'], 'a lone JavaScript expression gives its raw value');
    const entry = '${ var names = []; for (var i = 1; i <= 3; i++) names.push("part" + i + ".txt"); return names; }\n';
    const options = { javascript: { evaluator: sandbox, expressionLib: [] }, trimWhitespace: false };
    assert.equal(await evaluateExpression(entry, context, options), '["part1.txt", "part2.txt", "part3.txt"]\n', 'an InitialWorkDir entry');
  });

  it('runs expressionLib before the code, in order, in the same global scope, with the context already set', async () => {
    assert.equal(await run('$(outputName())'), 'sample_R1.bam');
    assert.equal(await run('$(stem({basename: "x.fastq"}) + SUFFIX)'), 'x.bam');
    assert.equal(await run('$(typeof stem)', []), 'undefined', 'without the library its functions are not there');
    assert.equal(await run('$(PLACES)', ['var PLACES = inputs.samples.length + runtime.cores;']), 5);
  });

  it('answers references that break the reference rules as JavaScript does', async () => {
    assert.equal(await run('$(inputs.absent)'), null, 'a missing member is undefined, so null');
    assert.equal(await run('$(inputs.reads.basename.length)'), 18);
    assert.equal(await run('$(inputs.samples[7])'), null);
  });

  it('brings values back as JSON: undefined and NaN become null, functions are left out or refused', async () => {
    assert.equal(await run('${ }'), null);
    assert.equal(await run('$(0 / 0)'), null);
    assert.equal(await run('$(1 / 0)'), null);
    assert.deepEqual(await run('$([undefined, function () {}, 1.5])'), [null, null, 1.5]);
    assert.deepEqual(await run('$({a: undefined, b: function () {}, c: "kept"})'), { c: 'kept' });
    assert.equal(await run('$(new Date(0))'), '1970-01-01T00:00:00.000Z');
    assert.match((await failure('$(function () {})')).message, /returned a function, which is not a JSON value/);
    assert.match((await failure('$(Symbol("s"))')).message, /returned a symbol/);
    assert.match((await failure('${ var a = {}; a.self = a; return a; }')).message, /writing its value as JSON: TypeError: circular reference/);
  });

  it('fails the expression with what JavaScript threw, in strict mode', async () => {
    const thrown = await failure('${ throw new Error("reads " + inputs.reads.basename + " are empty"); }');
    assert.equal(thrown.message, '${ throw new Error("reads " + inputs.reads.basename + " are empty"); } failed: Error: reads sample_R1.fastq.gz are empty');
    assert.match((await failure('${ throw "no reads"; }')).message, /failed: uncaught exception "no reads"$/);
    assert.match((await failure('$(inputs.prefix.length)')).message, /TypeError: cannot read property 'length' of null/);
    assert.match((await failure('${ undeclared = 1; return undeclared; }')).message, /ReferenceError: 'undeclared' is not defined/);
    assert.match((await failure('$(1 +)')).message, /SyntaxError/);
    assert.match((await failure('$(1)', ['function broken( {'])).message, /failed: expressionLib\[0\]: SyntaxError/);
    assert.match((await failure('$(1)', ['var ok = 1;', 'null.x;'])).message, /failed: expressionLib\[1\]: TypeError/);
  });

  it('offers only ECMAScript: no process, require, fetch, timers, console or modules, however reached', async () => {
    const globals = await run(
      '$(["process", "require", "module", "fetch", "setTimeout", "setInterval", "console", "Buffer", "WebAssembly", "std", "os"]' +
        '.filter(function (name) { return typeof globalThis[name] !== "undefined"; }))',
    );
    assert.deepEqual(globals, []);
    assert.match((await failure('$(process.exit(1))')).message, /ReferenceError: 'process' is not defined/);
    assert.match((await failure('$(require("fs"))')).message, /ReferenceError: 'require' is not defined/);
    assert.match((await failure('$(fetch("http://127.0.0.1/"))')).message, /ReferenceError: 'fetch' is not defined/);
    assert.match((await failure("$(globalThis.constructor.constructor('return process')())")).message, /ReferenceError: 'process' is not defined/);
    assert.match((await failure("$(Function('return this')().process.version)")).message, /TypeError: cannot read property 'version' of undefined/);
    // import() makes a promise that nothing ever settles: no job loop runs and no module loader exists.
    const load = '${ var seen = "unsettled"; import("node:fs").then(function () { seen = "loaded"; }, function () { seen = "refused"; }); return seen; }';
    assert.equal(await run(load), 'unsettled');
  });

  it('keeps nothing between evaluations: globals, prototypes and library state start afresh', async () => {
    const counter = ['var calls = 0; function count() { calls += 1; return calls; }'];
    assert.equal(await run('${ globalThis.leaked = inputs.threads; Array.prototype.secret = "s"; Object.prototype.polluted = 1; return 1; }'), 1);
    assert.deepEqual(await run('$([typeof leaked, typeof [].secret, typeof {}.polluted])'), ['undefined', 'undefined', 'undefined']);
    assert.equal(await run('$(count())', counter), 1);
    assert.equal(await run('$(count())', counter), 1);
    const other: ExpressionContext = { ...context, inputs: { threads: 1 } };
    assert.equal(await run('$(typeof inputs.reads)', [], other), 'undefined', "another task's inputs are its own");
  });
});
