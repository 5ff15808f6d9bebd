import assert from 'node:assert/strict';
import type { CwlValue, Workflow, WorkflowStep } from '../../../../src/domain/cwl/index.js';
import type { ExpressionEvaluator } from '../../../../src/domain/cwl/expressions/index.js';
import { effectiveRequirements, type StepOptions, type ValuesOf } from '../../../../src/domain/cwl/workflow/index.js';
import { loadProcess, yaml } from '../helpers.js';

/** Small workflows for the workflow tests: a main document `wf.cwl` beside two tools its steps can run. */
export const ECHO = yaml`
  cwlVersion: v1.2
  class: CommandLineTool
  baseCommand: echo
  inputs:
    text: {type: Any?, inputBinding: {}}
  outputs:
    out: stdout
`;

export const PAIR = yaml`
  cwlVersion: v1.2
  class: CommandLineTool
  baseCommand: echo
  inputs:
    a: {type: Any?, inputBinding: {position: 1}}
    b: {type: Any?, inputBinding: {position: 2}}
  outputs:
    out: stdout
    err: stderr
`;

/** Loads `text` (a whole v1.2 Workflow document) as `wf.cwl`, with echo.cwl and pair.cwl beside it. */
export async function loadWorkflow(text: string, files: Record<string, string> = {}): Promise<Workflow> {
  const process = await loadProcess({ 'wf.cwl': text, 'echo.cwl': ECHO, 'pair.cwl': PAIR, ...files }, 'wf.cwl');
  assert.equal(process.class, 'Workflow');
  return process;
}

export function stepOf(workflow: Workflow, name: string): WorkflowStep {
  const step = workflow.steps.find((s) => s.name === name);
  assert.ok(step, `no step ${name}`);
  return step;
}

/** What a step of the root workflow evaluates its expressions with. */
export function optionsFor(workflow: Workflow, step: WorkflowStep, evaluator?: ExpressionEvaluator): StepOptions {
  const requirements = effectiveRequirements([workflow], step, undefined);
  return evaluator ? { requirements, cwlVersion: workflow.cwlVersion, evaluator } : { requirements, cwlVersion: workflow.cwlVersion };
}

/** `valuesOf` over values by the short form of their ids (`x` for a workflow input, `step/out` for a step output). */
export function values(byName: Record<string, CwlValue>): ValuesOf {
  return (id) => byName[id.slice(id.indexOf('#') + 1)];
}

/** The WorkflowRunError (or other Error) a promise or function rejects with, for its message. */
export async function failure(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail('no error was thrown');
}
