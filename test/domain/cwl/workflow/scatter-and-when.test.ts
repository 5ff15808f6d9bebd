/**
 * Scatter (dotproduct, flat and nested crossproduct, empty lists, an input scattered twice), gathering (nulls for
 * skipped instances, empty lists kept nested), and `when` (true, false, not a boolean, reading inputs the process
 * does not declare, with and without JavaScript in the real sandbox).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { CwlInputObject, Workflow } from '../../../../src/domain/cwl/index.js';
import {
  evaluateStepInputs,
  evaluateWhen,
  expandScatter,
  gatherScatter,
  linkStepInputs,
  skippedOutputs,
  WorkflowRunError,
} from '../../../../src/domain/cwl/workflow/index.js';
import { JavaScriptSandbox } from '../../../../src/engine/js-sandbox/index.js';
import { yaml } from '../helpers.js';
import { failure, loadWorkflow, optionsFor, stepOf, values } from './support.js';

/** A scattered value as text: strings as they are, numbers and the rest as JSON. */
const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const sandbox = new JavaScriptSandbox({ workers: 1 });
after(() => sandbox.close());

const scatterWorkflow = (scatter: string, method?: string): Promise<Workflow> =>
  loadWorkflow(yaml`
    cwlVersion: v1.2
    class: Workflow
    requirements: {ScatterFeatureRequirement: {}, StepInputExpressionRequirement: {}}
    inputs: {xs: Any, ys: Any, fixed: string}
    outputs: []
    steps:
      s:
        run: pair.cwl
        scatter: ${scatter}
        ${method ? `scatterMethod: ${method}` : ''}
        in:
          a: xs
          b: {source: ys, valueFrom: '$(self)!'}
          c: fixed
        out: [out, err]
  `);

const expand = async (scatter: string, method: string | undefined, given: Record<string, unknown>) => {
  const wf = await scatterWorkflow(scatter, method);
  return expandScatter(stepOf(wf, 's'), linkStepInputs(stepOf(wf, 's'), values({ fixed: 'f', ...(given as CwlInputObject) })));
};

describe('CWL scatter', () => {
  it('one scattered input: an instance per element, the other inputs unchanged', async () => {
    const { instances, shape } = await expand('a', undefined, { xs: [1, 2, 3], ys: 'y' });
    assert.deepEqual(
      instances,
      [1, 2, 3].map((a) => ({ a, b: 'y', c: 'f' })),
    );
    assert.deepEqual(shape, { outputs: ['out', 'err'], layout: [0, 1, 2] });
  });

  it('dotproduct pairs elements, and refuses lists of different lengths naming them', async () => {
    const { instances } = await expand('[a, b]', 'dotproduct', { xs: [1, 2], ys: ['p', 'q'] });
    assert.deepEqual(instances, [
      { a: 1, b: 'p', c: 'f' },
      { a: 2, b: 'q', c: 'f' },
    ]);
    const error = await failure(() => expand('[a, b]', 'dotproduct', { xs: [1, 2, 3], ys: ['p'] }));
    assert.ok(error instanceof WorkflowRunError);
    assert.equal(error.message, "step 's': a dotproduct scatter needs lists of one length, but 'a' has 3, 'b' has 1 items");
    await assert.rejects(expand('a', undefined, { xs: 'not a list' }), /step 's' scatters over 'a', which must be a list, not the string "not a list"/);
  });

  it('nested_crossproduct gives every combination in the order of scatter, gathered as lists of lists', async () => {
    const { instances, shape } = await expand('[a, b]', 'nested_crossproduct', { xs: [1, 2], ys: ['p', 'q', 'r'] });
    assert.deepEqual(
      instances.map((i) => `${text(i.a)}${text(i.b)}`),
      ['1p', '1q', '1r', '2p', '2q', '2r'],
    );
    assert.deepEqual(shape.layout, [
      [0, 1, 2],
      [3, 4, 5],
    ]);
    const outputs = instances.map((i) => ({ out: `${text(i.a)}${text(i.b)}`, err: null }));
    assert.deepEqual(gatherScatter(shape, outputs), {
      out: [
        ['1p', '1q', '1r'],
        ['2p', '2q', '2r'],
      ],
      err: [
        [null, null, null],
        [null, null, null],
      ],
    });
  });

  it('flat_crossproduct gives the same combinations gathered into one list', async () => {
    const { instances, shape } = await expand('[b, a]', 'flat_crossproduct', { xs: [1, 2], ys: ['p', 'q'] });
    assert.deepEqual(
      instances.map((i) => `${text(i.b)}${text(i.a)}`),
      ['p1', 'p2', 'q1', 'q2'],
    );
    assert.deepEqual(shape.layout, [0, 1, 2, 3]);
  });

  it('an empty list gives no instance and empty lists, keeping the nesting before it', async () => {
    for (const [scatter, method, given, gathered] of [
      ['a', undefined, { xs: [] }, []],
      ['[a, b]', 'dotproduct', { xs: [], ys: [] }, []],
      ['[a, b]', 'flat_crossproduct', { xs: [1, 2], ys: [] }, []],
      ['[a, b]', 'nested_crossproduct', { xs: [1, 2], ys: [] }, [[], []]],
      ['[a, b]', 'nested_crossproduct', { xs: [], ys: [1] }, []],
    ] as const) {
      const { instances, shape } = await expand(scatter, method, given);
      assert.equal(instances.length, 0, `${scatter} ${String(method)}`);
      assert.deepEqual(gatherScatter(shape, []), { out: gathered, err: gathered }, `${scatter} ${String(method)}`);
    }
  });

  it('an input scattered twice is scattered at two levels (its elements are lists)', async () => {
    const { instances, shape } = await expand('[a, a]', 'nested_crossproduct', {
      xs: [
        [1, 2],
        [3, 4, 5],
      ],
    });
    assert.deepEqual(
      instances.map((i) => i.a),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(shape.layout, [
      [0, 1],
      [2, 3, 4],
    ]);
  });

  it('valueFrom runs per instance with self the element; a skipped instance is null in the gathered lists', async () => {
    const wf = await scatterWorkflow('[a, b]', 'dotproduct');
    const step = stepOf(wf, 's');
    const { instances, shape } = expandScatter(step, linkStepInputs(step, values({ xs: [1, 2, 3], ys: ['p', 'q', 'r'], fixed: 'f' })));
    const evaluated = await Promise.all(instances.map((i) => evaluateStepInputs(step, i, optionsFor(wf, step))));
    assert.deepEqual(
      evaluated.map((i) => i.b),
      ['p!', 'q!', 'r!'],
    );
    const outputs = [{ out: 'first', err: 'e' }, skippedOutputs(step), null];
    assert.deepEqual(gatherScatter(shape, outputs), { out: ['first', null, null], err: ['e', null, null] });
  });
});

describe('CWL when', () => {
  const conditional = (when: string, javascript: boolean): Promise<Workflow> =>
    loadWorkflow(yaml`
      cwlVersion: v1.2
      class: Workflow
      ${javascript ? 'requirements: {InlineJavascriptRequirement: {}}' : ''}
      inputs: {n: int?, flag: Any?}
      outputs: []
      steps:
        s:
          run: echo.cwl
          when: '${when}'
          in:
            text: n
            go: flag
          out: [out]
    `);

  it('runs the step on true and skips it on false, reading inputs the process does not declare', async () => {
    const wf = await conditional('$(inputs.go)', false);
    const step = stepOf(wf, 's');
    assert.equal(await evaluateWhen(step, { text: 1, go: true }, optionsFor(wf, step)), true);
    assert.equal(await evaluateWhen(step, { text: 1, go: false }, optionsFor(wf, step)), false);
    assert.deepEqual(skippedOutputs(step), { out: null });
    const js = await conditional('$(inputs.text !== null && inputs.text > 2)', true);
    const jsStep = stepOf(js, 's');
    assert.equal(await evaluateWhen(jsStep, { text: 3, go: null }, optionsFor(js, jsStep, sandbox)), true);
    assert.equal(await evaluateWhen(jsStep, { text: null, go: null }, optionsFor(js, jsStep, sandbox)), false);
  });

  it('fails on a result that is not a boolean, naming the step and the value', async () => {
    const wf = await conditional('$(inputs.go)', false);
    const step = stepOf(wf, 's');
    for (const [go, shown] of [
      [1, 'the whole number 1'],
      ['true', 'the string "true"'],
      [null, 'null'],
    ] as const) {
      const error = await failure(() => evaluateWhen(step, { text: 1, go }, optionsFor(wf, step)));
      assert.ok(error instanceof WorkflowRunError);
      assert.equal(error.message, `step 's': 'when' must give true or false, but $(inputs.go) gave ${shown}`);
    }
  });

  it('a step without when runs', async () => {
    const wf = await scatterWorkflow('a');
    assert.equal(await evaluateWhen(stepOf(wf, 's'), {}, optionsFor(wf, stepOf(wf, 's'))), true);
  });
});
