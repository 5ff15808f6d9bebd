/** planWorkflow: what each step and output reads, the order of the steps, and cycles named step by step. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CwlValidationError } from '../../../../src/domain/cwl/index.js';
import { planWorkflow } from '../../../../src/domain/cwl/workflow/index.js';
import { yaml } from '../helpers.js';
import { failure, loadWorkflow } from './support.js';

const DIAMOND = yaml`
  cwlVersion: v1.2
  class: Workflow
  requirements: {MultipleInputFeatureRequirement: {}}
  inputs:
    x: string
    y: string
  outputs:
    final: {type: File, outputSource: join/out}
    both: {type: Any, outputSource: [left/out, y]}
  steps:
    join:
      run: pair.cwl
      in: {a: left/out, b: [right/out, right/err]}
      out: [out]
    left:
      run: echo.cwl
      in: {text: x}
      out: [out]
    right:
      run: pair.cwl
      in: {a: {source: left/out}}
      out: [out, err]
    lone:
      run: echo.cwl
      in: {text: {default: constant}}
      out: [out]
`;

describe('CWL workflow graph', () => {
  it('links every step input and output to workflow inputs and step outputs, and orders steps after what they read', async () => {
    const plan = planWorkflow(await loadWorkflow(DIAMOND));
    assert.deepEqual(
      plan.steps.map((s) => s.step.name),
      ['left', 'lone', 'right', 'join'],
      'each step after those it reads; independent ones in the order of the steps (a map of steps is sorted by name)',
    );
    const join = plan.steps[3]!;
    assert.deepEqual(join.after, ['file:///w/wf.cwl#left', 'file:///w/wf.cwl#right'], 'each upstream step once');
    assert.deepEqual(
      join.inputs.map((i) => [i.name, i.sources.map((s) => (s.kind === 'step' ? `${s.stepName}/${s.output}` : `input ${s.name}`))]),
      [
        ['a', ['left/out']],
        ['b', ['right/out', 'right/err']],
      ],
    );
    assert.deepEqual(plan.steps[0]!.inputs[0]!.sources, [{ kind: 'input', id: 'file:///w/wf.cwl#x', name: 'x' }]);
    assert.deepEqual(plan.steps[1]!.after, [], 'a step with no source waits for nothing');
    assert.deepEqual(plan.steps[1]!.inputs, [{ name: 'text', sources: [] }]);
    assert.deepEqual(
      plan.outputs.map((o) => [o.name, o.sources.map((s) => s.kind)]),
      [
        ['both', ['step', 'input']],
        ['final', ['step']],
      ],
    );
  });

  it('refuses a cycle, naming its steps in the order data flows', async () => {
    const text = yaml`
      cwlVersion: v1.2
      class: Workflow
      inputs: {x: string}
      outputs: {o: {type: File, outputSource: c/out}}
      steps:
        start: {run: echo.cwl, in: {text: x}, out: [out]}
        a: {run: pair.cwl, in: {a: start/out, b: c/out}, out: [out]}
        b: {run: echo.cwl, in: {text: a/out}, out: [out]}
        c: {run: echo.cwl, in: {text: b/out}, out: [out]}
        after: {run: echo.cwl, in: {text: c/out}, out: [out]}
    `;
    const error = await failure(async () => planWorkflow(await loadWorkflow(text)));
    assert.ok(error instanceof CwlValidationError);
    assert.match(error.message, /steps 'a' -> 'b' -> 'c' -> 'a' form a cycle/);
    assert.match(error.message, /^\/w\/wf\.cwl:\d+:\d+: /, 'the message points at a step of the cycle');
  });

  it('refuses a step that reads its own output', async () => {
    const text = yaml`
      cwlVersion: v1.2
      class: Workflow
      inputs: {x: string}
      outputs: {o: {type: File, outputSource: self/out}}
      steps:
        self: {run: pair.cwl, in: {a: x, b: self/out}, out: [out]}
    `;
    assert.match((await failure(async () => planWorkflow(await loadWorkflow(text)))).message, /steps 'self' -> 'self' form a cycle/);
  });
});
