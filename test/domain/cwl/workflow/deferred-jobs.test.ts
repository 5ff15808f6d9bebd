/**
 * The deferred jobs of a run, as the engine will meet them: the root expands into its steps, a step resolves to a
 * process once the jobs it reads have outputs, a scatter expands into instances, a scattered subworkflow expands
 * into its steps keyed under each instance, a false `when` skips, and each expanding job gathers its outputs.
 * Outputs of the tool runs are given here as the engine stores them; payloads go through JSON as the engine keeps
 * them.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { nameParts, type CwlFile, type CwlOutputObject, type Workflow } from '../../../../src/domain/cwl/index.js';
import { gatherJob, resolveJob, type CwlGatherPayload, type CwlNewJob, type CwlResolution, type CwlRun } from '../../../../src/domain/cwl/workflow/index.js';
import { JavaScriptSandbox } from '../../../../src/engine/js-sandbox/index.js';
import { yaml } from '../helpers.js';
import { loadWorkflow } from './support.js';

const sandbox = new JavaScriptSandbox({ workers: 1 });
after(() => sandbox.close());

const GREETINGS = yaml`
  cwlVersion: v1.2
  class: Workflow
  requirements:
    ScatterFeatureRequirement: {}
    SubworkflowFeatureRequirement: {}
    StepInputExpressionRequirement: {}
    InlineJavascriptRequirement: {}
  inputs:
    names: string[]
    greeting: {type: string, default: hello}
  outputs:
    greetings: {type: {type: array, items: ["null", File]}, outputSource: per_name/said}
    first: {type: File, outputSource: first/out}
  steps:
    first:
      run: echo.cwl
      in: {text: {source: names, valueFrom: "$(self[0].toUpperCase())"}}
      out: [out]
    per_name:
      run:
        class: Workflow
        inputs: {name: string, greeting: string, after: File}
        outputs: {said: {type: File?, outputSource: say/out}}
        steps:
          say:
            run: pair.cwl
            when: $(inputs.b != "skip")
            in: {a: greeting, b: name}
            out: [out]
      scatter: name
      in: {name: names, greeting: greeting, after: first/out}
      out: [said]
`;

const file = (name: string): CwlFile => ({ class: 'File', location: `file:///data/${name}`, basename: name, ...nameParts(name) });

/** What the engine keeps: payloads and gathers pass through JSON, outputs by job key. */
class Task {
  readonly outputs = new Map<string, CwlOutputObject>();
  readonly jobs = new Map<string, CwlNewJob>();
  readonly gathers = new Map<string, CwlGatherPayload>();
  constructor(readonly run: CwlRun) {}

  async resolve(key: string): Promise<CwlResolution> {
    const payload = key === 'main' ? { kind: 'root' as const, inputs: { names: ['ann', 'skip'] } } : this.jobs.get(key)!.payload;
    const resolution = await resolveJob(this.run, key, payload, (k) => this.outputs.get(k), { evaluator: sandbox });
    if (resolution.kind === 'expand') {
      for (const job of resolution.jobs) this.jobs.set(job.key, JSON.parse(JSON.stringify(job)) as CwlNewJob);
      this.gathers.set(key, JSON.parse(JSON.stringify(resolution.gather)) as CwlGatherPayload);
    }
    if (resolution.kind === 'skipped') this.outputs.set(key, resolution.outputs);
    return resolution;
  }

  gather(key: string): CwlOutputObject {
    const outputs = gatherJob(this.run, this.gathers.get(key)!, (k) => this.outputs.get(k));
    this.outputs.set(key, outputs);
    return outputs;
  }
}

describe('CWL deferred jobs', () => {
  it('walks a scattered, conditional subworkflow: expansions, keys, dependencies, processes, skips and gathers', async () => {
    const root = await loadWorkflow(GREETINGS);
    const task = new Task({ root, jobRequirements: [] });

    const expanded = await task.resolve('main');
    assert.equal(expanded.kind, 'expand');
    assert.deepEqual(
      [...task.jobs.values()].map((j) => [j.key, j.deps]),
      [
        ['main/first', []],
        ['main/per_name', ['main/first']],
      ],
    );
    const perName = task.jobs.get('main/per_name')!.payload;
    assert.deepEqual(perName.kind === 'step' && perName.sources, {
      'file:///w/wf.cwl#names': { value: ['ann', 'skip'] },
      'file:///w/wf.cwl#greeting': { value: 'hello' },
      'file:///w/wf.cwl#first/out': { job: 'main/first', output: 'out' },
    });

    const first = await task.resolve('main/first');
    assert.equal(first.kind, 'process');
    assert.deepEqual(first.kind === 'process' && [first.process.id, first.inputs], ['file:///w/echo.cwl', { text: 'ANN' }]);
    task.outputs.set('main/first', { out: file('first.txt') });

    const scatter = await task.resolve('main/per_name');
    assert.deepEqual(scatter.kind === 'expand' && scatter.jobs.map((j) => [j.key, j.deps]), [
      ['main/per_name[0]', []],
      ['main/per_name[1]', []],
    ]);
    assert.deepEqual(task.jobs.get('main/per_name[1]')!.payload, {
      kind: 'instance',
      path: [root.steps[1]!.id],
      index: 1,
      inputs: { name: 'skip', greeting: 'hello', after: file('first.txt') },
    });

    for (const instance of ['main/per_name[0]', 'main/per_name[1]']) {
      const sub = await task.resolve(instance);
      assert.deepEqual(sub.kind === 'expand' && sub.jobs.map((j) => j.key), [`${instance}/say`]);
    }
    const say = await task.resolve('main/per_name[0]/say');
    assert.equal(say.kind, 'process');
    assert.deepEqual(say.kind === 'process' && say.inputs, { a: 'hello', b: 'ann' });
    assert.deepEqual(
      say.kind === 'process' && say.requirements.requirements.map((r) => r.class),
      ['InlineJavascriptRequirement'],
      'the root workflow requirements a CommandLineTool may inherit',
    );
    task.outputs.set('main/per_name[0]/say', { out: file('ann.txt') });
    assert.deepEqual(await task.resolve('main/per_name[1]/say'), { kind: 'skipped', outputs: { out: null } });

    assert.deepEqual(task.gather('main/per_name[0]'), { said: file('ann.txt') });
    assert.deepEqual(task.gather('main/per_name[1]'), { said: null });
    assert.deepEqual(task.gather('main/per_name'), { said: [file('ann.txt'), null] });
    assert.deepEqual(task.gather('main'), { greetings: [file('ann.txt'), null], first: file('first.txt') });
  });

  it('an empty scatter expands into nothing and gathers empty lists; a root tool is run directly', async () => {
    const root = await loadWorkflow(GREETINGS);
    const task = new Task({ root, jobRequirements: [] });
    const rootPayload = { kind: 'root' as const, inputs: { names: [] } };
    const expanded = await resolveJob(task.run, 'main', rootPayload, () => undefined, { evaluator: sandbox });
    assert.equal(expanded.kind, 'expand');
    for (const job of expanded.kind === 'expand' ? expanded.jobs : []) task.jobs.set(job.key, job);
    task.outputs.set('main/first', { out: file('first.txt') });
    const scatter = await task.resolve('main/per_name');
    assert.deepEqual(scatter.kind === 'expand' && scatter.jobs, []);
    assert.deepEqual(task.gather('main/per_name'), { said: [] });

    const tool = root.steps[0]!.run;
    const direct = await resolveJob({ root: tool, jobRequirements: [] }, 'main', { kind: 'root', inputs: { text: 'hi' } }, () => undefined);
    assert.equal(direct.kind, 'process');
    assert.deepEqual(direct.kind === 'process' && direct.inputs, { text: 'hi' });
  });

  it("fails a subworkflow whose inputs do not fit its types, and the root's outputs on a missing required value", async () => {
    const root: Workflow = await loadWorkflow(GREETINGS);
    const task = new Task({ root, jobRequirements: [] });
    await task.resolve('main');
    task.outputs.set('main/first', { out: file('first.txt') });
    await task.resolve('main/per_name');
    const wrong = { kind: 'instance', path: [root.steps[1]!.id], index: 0, inputs: { name: 3 } } as const;
    task.jobs.set('main/per_name[0]', { ...task.jobs.get('main/per_name[0]')!, payload: wrong });
    await assert.rejects(task.resolve('main/per_name[0]'), /inputs\.name: must be string, not the whole number 3/);
    task.outputs.set('main/first', { out: null });
    assert.throws(() => task.gather('main'), /output 'first' is null, but its type File is not optional/);
  });
});
