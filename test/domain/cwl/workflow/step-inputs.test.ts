/**
 * Step inputs: source, linkMerge (and its defaults), pickValue with its errors, default, valueFrom (self and the
 * inputs before valueFrom, JavaScript in the real QuickJS sandbox), inputs the process does not declare, and
 * loadContents through real files.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ContentsTooLargeError, type CwlValue } from '../../../../src/domain/cwl/index.js';
import { linkStepInputs, mergeLinks, resolveStepInputs, WorkflowRunError } from '../../../../src/domain/cwl/workflow/index.js';
import { LocalFileContents } from '../../../../src/engine/cwl/file-contents.js';
import { JavaScriptSandbox } from '../../../../src/engine/js-sandbox/index.js';
import { yaml } from '../helpers.js';
import { failure, loadWorkflow, optionsFor, stepOf, values } from './support.js';

const sandbox = new JavaScriptSandbox({ workers: 1 });
let dir = '';
before(() => (dir = mkdtempSync(join(tmpdir(), 'gdflow-cwl-step-inputs-'))));
after(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const LINKS = yaml`
  cwlVersion: v1.2
  class: Workflow
  requirements: {MultipleInputFeatureRequirement: {}}
  inputs: {x: Any, y: Any, z: Any}
  outputs: []
  steps:
    s:
      run: pair.cwl
      in:
        a: x
        b: [y]
        one_nested: {source: [x], linkMerge: merge_nested}
        two: [x, y]
        flat: {source: [x, y, z], linkMerge: merge_flattened}
        none: {}
        fallback: {source: x, default: fallback}
        only_default: {default: [1, 2]}
      out: [out]
`;

describe('CWL step inputs: sources and linkMerge', () => {
  it('takes one source as it is (also a one-item list), nests several, flattens on merge_flattened, nests one on merge_nested', async () => {
    const wf = await loadWorkflow(LINKS);
    const linked = linkStepInputs(stepOf(wf, 's'), values({ x: [1, 2], y: 'b', z: [[3]] }));
    assert.deepEqual(linked, {
      a: [1, 2],
      b: 'b',
      one_nested: [[1, 2]],
      two: [[1, 2], 'b'],
      flat: [1, 2, 'b', [3]],
      none: null,
      fallback: [1, 2],
      only_default: [1, 2],
    });
  });

  it('uses the default when the source is null or has no value, and a source without value is null', async () => {
    const wf = await loadWorkflow(LINKS);
    const linked = linkStepInputs(stepOf(wf, 's'), values({ x: null, z: [] }));
    assert.equal(linked.fallback, 'fallback');
    assert.equal(linked.b, null, 'y has no value');
    assert.deepEqual(linked.two, [null, null]);
    assert.deepEqual(linked.flat, [null, null]);
  });
});

describe('CWL pickValue', () => {
  const pick = (list: CwlValue[], pickValue: 'first_non_null' | 'the_only_non_null' | 'all_non_null'): CwlValue =>
    mergeLinks(list, { pickValue }, "input 'i' of step 's'");

  it('first_non_null, the_only_non_null and all_non_null pick on the first level, as the spec examples say', () => {
    assert.equal(pick([null, 'x', null, 'y'], 'first_non_null'), 'x');
    assert.deepEqual(pick([null, [null], null, 'y'], 'first_non_null'), [null]);
    assert.equal(pick([null, 'x', null], 'the_only_non_null'), 'x');
    assert.deepEqual(pick([null, [null], null], 'the_only_non_null'), [null]);
    assert.deepEqual(pick([null, 'x', null], 'all_non_null'), ['x']);
    assert.deepEqual(pick([null, ['x'], [null]], 'all_non_null'), [['x'], [null]]);
    assert.deepEqual(pick([null, null, null], 'all_non_null'), []);
    assert.equal(mergeLinks(['only'], { pickValue: 'first_non_null' }, 'i'), 'only', 'a single value that is not a list is left as it is');
    assert.deepEqual(mergeLinks([[null, 3]], { pickValue: 'all_non_null' }, 'i'), [3], "a single source's list is picked from");
  });

  it('fails when every source is null, or when the_only_non_null finds more than one', () => {
    assert.throws(() => pick([null, null], 'first_non_null'), /input 'i' of step 's': every source is null, and pickValue: first_non_null needs/);
    assert.throws(() => pick([null, null], 'the_only_non_null'), WorkflowRunError);
    assert.throws(
      () => pick(['x', null, 'y'], 'the_only_non_null'),
      /pickValue: the_only_non_null allows one source that is not null, but sources 1 \(the string "x"\), 3 \(the string "y"\) are not null/,
    );
  });

  it('applies pickValue after linkMerge and before the default', async () => {
    const wf = await loadWorkflow(yaml`
      cwlVersion: v1.2
      class: Workflow
      requirements: {MultipleInputFeatureRequirement: {}}
      inputs: {x: Any?, y: Any?}
      outputs: []
      steps:
        s:
          run: pair.cwl
          in:
            a: {source: [x, y], pickValue: first_non_null}
            b: {source: [x, y], linkMerge: merge_flattened, pickValue: all_non_null, default: [none]}
          out: [out]
    `);
    const step = stepOf(wf, 's');
    assert.deepEqual(linkStepInputs(step, values({ x: null, y: [null, 4] })), { a: [null, 4], b: [4] });
    assert.deepEqual(linkStepInputs(step, values({ x: 'x', y: null })), { a: 'x', b: ['x'] });
    assert.throws(() => linkStepInputs(step, values({ x: null, y: null })), /input 'a' of step 's': every source is null/);
  });
});

describe('CWL valueFrom', () => {
  const VALUE_FROM = yaml`
    cwlVersion: v1.2
    class: Workflow
    requirements: {StepInputExpressionRequirement: {}, InlineJavascriptRequirement: {expressionLib: ["function twice(v) { return v * 2; }"]}}
    inputs: {n: int, name: string}
    outputs: []
    steps:
      s:
        run: pair.cwl
        in:
          a: {source: n, valueFrom: $(twice(self))}
          b: {source: n, valueFrom: '$(inputs.a + inputs.extra) from \${return inputs.name.toUpperCase()}'}
          extra: {default: 10}
          name: name
          constant: {valueFrom: fixed text}
          from_null: {valueFrom: '$(self === null ? "no source" : self)'}
          default_file: {default: {class: File, location: data/reads.fq.gz}, valueFrom: $(self.nameroot)}
        out: [out]
  `;

  it('evaluates with self the input (a default File with its name parts) and inputs the object before any valueFrom, extra inputs included', async () => {
    const wf = await loadWorkflow(VALUE_FROM);
    const step = stepOf(wf, 's');
    const inputs = await resolveStepInputs(step, values({ n: 4, name: 'ann' }), optionsFor(wf, step, sandbox));
    assert.deepEqual(inputs, {
      a: 8,
      b: '14 from ANN',
      extra: 10,
      name: 'ann',
      constant: 'fixed text',
      from_null: 'no source',
      default_file: 'reads.fq',
    });
  });

  it('names the step and the input when an expression fails, and needs JavaScript only for JavaScript', async () => {
    const wf = await loadWorkflow(VALUE_FROM.replace('$(twice(self))', '$(self.missing.deeper)'));
    const step = stepOf(wf, 's');
    const error = await failure(() => resolveStepInputs(step, values({ n: 4, name: 'ann' }), optionsFor(wf, step, sandbox)));
    assert.ok(error instanceof WorkflowRunError);
    assert.match(error.message, /^step 's', valueFrom of input 'a': \$\(self\.missing\.deeper\) failed: TypeError/);
    const references = await loadWorkflow(yaml`
      cwlVersion: v1.0
      class: Workflow
      requirements: {StepInputExpressionRequirement: {}}
      inputs: {rec: {type: {type: record, fields: {file: File}}}}
      outputs: []
      steps:
        s: {run: echo.cwl, in: {text: {source: rec, valueFrom: $(self.file.basename)}}, out: [out]}
    `);
    const s = stepOf(references, 's');
    const rec = { file: { class: 'File', location: 'file:///d/reads.fq', basename: 'reads.fq' } } as const;
    assert.deepEqual(await resolveStepInputs(s, values({ rec }), optionsFor(references, s)), { text: 'reads.fq' }, 'no evaluator needed');
  });
});

describe('CWL loadContents on step inputs', () => {
  const LOAD = yaml`
    cwlVersion: v1.2
    class: Workflow
    requirements: {StepInputExpressionRequirement: {}}
    inputs: {f: File, many: "File[]"}
    outputs: []
    steps:
      s:
        run: pair.cwl
        in:
          a: {source: f, loadContents: true, valueFrom: $(self.contents)}
          b: {source: many, loadContents: true}
        out: [out]
  `;
  const file = (name: string, text: string): { class: 'File'; location: string; basename: string } => {
    writeFileSync(join(dir, name), text);
    return { class: 'File', location: pathToFileURL(join(dir, name)).href, basename: name };
  };

  it('loads the contents before valueFrom reads them, for a File and each File of a list', async () => {
    const wf = await loadWorkflow(LOAD);
    const step = stepOf(wf, 's');
    const options = { ...optionsFor(wf, step), contents: new LocalFileContents() };
    const inputs = await resolveStepInputs(step, values({ f: file('n.txt', '42\n'), many: [file('a.txt', 'A'), file('b.txt', 'B')] }), options);
    assert.equal(inputs.a, '42\n');
    assert.deepEqual(
      (inputs.b as { contents: string }[]).map((f) => f.contents),
      ['A', 'B'],
    );
  });

  it('refuses a file over 64 KiB under v1.2 and truncates it under v1.1', async () => {
    const big = file('big.txt', 'x'.repeat(64 * 1024 + 1));
    const exact = file('exact.txt', 'y'.repeat(64 * 1024));
    for (const version of ['v1.2', 'v1.1'] as const) {
      const wf = await loadWorkflow(LOAD.replace('v1.2', version));
      const step = stepOf(wf, 's');
      const options = { ...optionsFor(wf, step), contents: new LocalFileContents() };
      const run = resolveStepInputs(step, values({ f: big, many: [exact] }), options);
      const tooLarge = (e: Error): boolean =>
        e instanceof WorkflowRunError &&
        e.cause instanceof ContentsTooLargeError &&
        e.message.startsWith("step 's', loadContents of input 'a': loadContents reads at most 64 KiB");
      if (version === 'v1.2') await assert.rejects(run, tooLarge);
      else assert.equal(((await run).a as string).length, 64 * 1024);
    }
    const wf = await loadWorkflow(LOAD);
    const inputs = await resolveStepInputs(stepOf(wf, 's'), values({ f: exact, many: [] }), {
      ...optionsFor(wf, stepOf(wf, 's')),
      contents: new LocalFileContents(),
    });
    assert.equal((inputs.a as string).length, 64 * 1024, 'exactly 64 KiB is allowed');
  });
});
