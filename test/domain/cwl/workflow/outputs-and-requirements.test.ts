/**
 * Workflow outputs (outputSource, linkMerge, pickValue, the declared type checked and normalized) and the
 * requirements in effect for a step's process (inheritance, precedence, hints, the job's cwl:requirements).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CommandLineTool, Requirement, Workflow } from '../../../../src/domain/cwl/index.js';
import { effectiveRequirements, findRequirement, locateProcess, resolveWorkflowOutputs, WorkflowRunError } from '../../../../src/domain/cwl/workflow/index.js';
import { yaml } from '../helpers.js';
import { failure, loadWorkflow, stepOf, values } from './support.js';

const OUTPUTS = yaml`
  cwlVersion: v1.2
  class: Workflow
  requirements: {MultipleInputFeatureRequirement: {}}
  inputs:
    def: {type: string, default: fallback}
    color: {type: {type: enum, symbols: [red, green]}}
  outputs:
    single: {type: File?, outputSource: a/out}
    first: {type: Any, outputSource: [a/out, def], pickValue: first_non_null}
    only: {type: Any, outputSource: [a/out, b/out], pickValue: the_only_non_null}
    all: {type: "Any[]", outputSource: [a/out, b/out, def], pickValue: all_non_null}
    nested: {type: Any, outputSource: [def, def]}
    flat: {type: {type: array, items: ["null", string]}, outputSource: [b/out, def], linkMerge: merge_flattened}
    paint: {type: {type: enum, symbols: [red, green]}, outputSource: color}
  steps:
    a: {run: echo.cwl, in: {text: def}, out: [out]}
    b: {run: echo.cwl, in: {text: def}, out: [out]}
`;

describe('CWL workflow outputs', () => {
  it('merges and picks the sources of each output, and normalizes values by their types', async () => {
    const wf = await loadWorkflow(OUTPUTS);
    const file = { class: 'File', location: 'file:///data/out.txt', size: 3 } as const;
    const outputs = resolveWorkflowOutputs(wf, values({ 'a/out': null, 'b/out': ['x', 'y'], def: 'fallback', color: 'red' }));
    assert.deepEqual(outputs, {
      single: null,
      first: 'fallback',
      only: ['x', 'y'],
      all: [['x', 'y'], 'fallback'],
      nested: ['fallback', 'fallback'],
      flat: ['x', 'y', 'fallback'],
      paint: 'red',
    });
    const withFile = resolveWorkflowOutputs(wf, values({ 'a/out': file, 'b/out': null, def: 'd', color: 'green' }));
    assert.deepEqual(withFile.single, { class: 'File', location: 'file:///data/out.txt', basename: 'out.txt', nameroot: 'out', nameext: '.txt', size: 3 });
  });

  it('fails on a null for a non-optional output and on a value of the wrong type, naming each output', async () => {
    const wf = await loadWorkflow(
      OUTPUTS.replace('first: {type: Any, outputSource: [a/out, def], pickValue: first_non_null}', 'first: {type: string, outputSource: a/out}').replace(
        'flat: {type: {type: array, items: ["null", string]}',
        'flat: {type: string',
      ),
    );
    const error = await failure(() => resolveWorkflowOutputs(wf, values({ 'a/out': null, 'b/out': 'z', def: 'd', color: 'red' })));
    assert.ok(error instanceof WorkflowRunError);
    assert.match(error.message, /output 'first' is null, but its type string is not optional/);
    assert.match(error.message, /outputs\.flat: must be string, not a list of 2/);
  });

  it('fails when pickValue finds no value, or two for the_only_non_null', async () => {
    const wf = await loadWorkflow(OUTPUTS);
    const both = values({ 'a/out': 'x', 'b/out': 'y', def: 'd', color: 'red' });
    assert.throws(() => resolveWorkflowOutputs(wf, both), /output 'only': pickValue: the_only_non_null allows one source/);
    const none = values({ 'a/out': null, 'b/out': null, def: 'd', color: 'red' });
    assert.throws(() => resolveWorkflowOutputs(wf, none), /output 'only': every source is null/);
  });
});

const LAYERS = yaml`
  cwlVersion: v1.2
  class: Workflow
  requirements:
    SubworkflowFeatureRequirement: {}
    EnvVarRequirement: {envDef: {FROM: workflow}}
    ResourceRequirement: {coresMin: 2, ramMin: 100}
  hints:
    DockerRequirement: {dockerPull: "debian:workflow-hint"}
  inputs: {x: string}
  outputs: []
  steps:
    plain:
      run: tool.cwl
      in: {x: x}
      out: [out]
    stepped:
      run: tool.cwl
      requirements:
        EnvVarRequirement: {envDef: {FROM: step}}
      in: {x: x}
      out: [out]
    nested:
      run:
        class: Workflow
        requirements:
          ResourceRequirement: {coresMin: 8}
        inputs: {x: string}
        outputs: []
        steps:
          inner: {run: tool.cwl, in: {x: x}, out: [out]}
      in: {x: x}
      out: []
`;

const TOOL_WITH_HINTS = yaml`
  cwlVersion: v1.2
  class: CommandLineTool
  baseCommand: env
  requirements:
    ShellCommandRequirement: {}
  hints:
    EnvVarRequirement: {envDef: {FROM: tool-hint}}
    DockerRequirement: {dockerPull: "debian:tool-hint"}
  inputs: {x: string}
  outputs: {out: stdout}
`;

describe('CWL requirement inheritance', () => {
  const load = (): Promise<Workflow> => loadWorkflow(LAYERS, { 'tool.cwl': TOOL_WITH_HINTS });
  const env = (requirements: ReturnType<typeof effectiveRequirements>): string | undefined => {
    const found = findRequirement(requirements, 'EnvVarRequirement');
    return found?.requirement.envDef[0]?.envValue;
  };

  it("a workflow's requirement overrides its tool's hint, a step's overrides the workflow's, and hints stay hints", async () => {
    const wf = await load();
    const plain = effectiveRequirements([wf], stepOf(wf, 'plain'), stepOf(wf, 'plain').run);
    assert.equal(env(plain), 'workflow', 'requirements override hints');
    assert.deepEqual(findRequirement(plain, 'DockerRequirement'), {
      requirement: (stepOf(wf, 'plain').run as CommandLineTool).hints.find((h) => h.class === 'DockerRequirement'),
      required: false,
    });
    assert.equal(findRequirement(plain, 'ShellCommandRequirement')?.required, true);
    const stepped = effectiveRequirements([wf], stepOf(wf, 'stepped'), stepOf(wf, 'stepped').run);
    assert.equal(env(stepped), 'step');
    assert.equal(
      plain.requirements.some((r) => r.class === 'SubworkflowFeatureRequirement'),
      false,
      'a CommandLineTool inherits only what is valid for it',
    );
  });

  it('an inner workflow overrides an outer one whole, found from the path of steps', async () => {
    const wf = await load();
    const nested = stepOf(wf, 'nested');
    const inner = (nested.run as Workflow).steps[0]!;
    const { process, requirements } = locateProcess(wf, [nested.id, inner.id], []);
    assert.equal(process.class, 'CommandLineTool');
    const resources = findRequirement(requirements, 'ResourceRequirement')?.requirement;
    assert.equal(resources?.coresMin, 8);
    assert.equal(resources?.ramMin, undefined, 'the inner declaration replaces the outer one, its ramMin included');
    assert.equal(env(requirements), 'workflow', 'what the inner workflow does not declare comes from the outer one');
  });

  it("the job's cwl:requirements override the root process's own, and are inherited like the root's", async () => {
    const tool = stepOf(await load(), 'plain').run;
    const jobEnv: Requirement = { class: 'EnvVarRequirement', envDef: [{ envName: 'FROM', envValue: 'job' }] };
    assert.equal(env(effectiveRequirements([], undefined, tool, [jobEnv])), 'job');
    const ownEnv: Requirement = { class: 'EnvVarRequirement', envDef: [{ envName: 'FROM', envValue: 'own' }] };
    const declaring = { ...tool, requirements: [...tool.requirements, ownEnv] } as CommandLineTool;
    assert.equal(env(effectiveRequirements([], undefined, declaring, [jobEnv])), 'job', 'over a requirement of the same class');
    const wf = await load();
    const { requirements } = locateProcess(wf, [stepOf(wf, 'plain').id], [jobEnv]);
    assert.equal(env(requirements), 'job', 'given to a workflow, they reach its steps');
    const stepped = locateProcess(wf, [stepOf(wf, 'stepped').id], [jobEnv]);
    assert.equal(env(stepped.requirements), 'step', 'a step is more specific than the root');
  });
});
