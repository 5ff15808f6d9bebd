import type { FileContentReader } from '../contents.js';
import type { ExpressionEvaluator } from '../expressions/index.js';
import type { CommandLineTool, CwlInputObject, CwlOutputObject, CwlProcess, ExpressionTool, Operation, Requirement } from '../model.js';
import type { FormatOntology } from '../types/format.js';
import { evaluateWhen, skippedOutputs } from './conditional.js';
import { bindWorkflowInputs, expandWorkflow } from './expand.js';
import { locateProcess, locateStep } from './locate.js';
import { resolveWorkflowOutputs } from './outputs.js';
import { instanceJobKey, ROOT_JOB_KEY, type CwlGatherPayload, type CwlJobPayload, type CwlNewJob, type CwlValueSource } from './payload.js';
import { effectiveRequirements, type EffectiveRequirements } from './requirements.js';
import { expandScatter, gatherScatter } from './scatter.js';
import type { StepOptions } from './step-expressions.js';
import { evaluateStepInputs, linkStepInputs, type ValuesOf } from './step-inputs.js';

/**
 * The CWL resolver's decisions for deferred jobs (payload.ts), as the engine asks for them: `resolveJob` when a
 * job's dependencies have ended, `gatherJob` when the jobs an expansion added have. Both are pure but for the
 * evaluator (JavaScript) and the contents reader the engine gives. What the run's values break fails the job
 * permanently: a WorkflowRunError (pickValue, scatter lengths, `when`, a failed step expression, a file too large
 * for loadContents, an output of the wrong type) or a CwlValidationError (values that do not fit a subworkflow's
 * inputs). Any other error is the evaluator's or the reader's own trouble (a closed sandbox, an unreadable file).
 */

/** What the task keeps for a CWL run: the root process of its document and the job object's `cwl:requirements`. */
export interface CwlRun {
  readonly root: CwlProcess;
  readonly jobRequirements: readonly Requirement[];
}

export interface ResolveOptions {
  readonly evaluator?: ExpressionEvaluator;
  readonly contents?: FileContentReader;
  readonly ontology?: FormatOntology;
}

/** The outputs of an ended job of the task, by key (undefined when the job is unknown or has none). */
export type OutputsOf = (key: string) => CwlOutputObject | undefined;

export type CwlResolution =
  /** The step's `when` is false: nothing runs and every output is null; the job ends as skipped. */
  | { readonly kind: 'skipped'; readonly outputs: CwlOutputObject }
  /**
   * Run `process` with `inputs` (the step's input object, names the process does not declare included: binding it
   * to the process's inputs leaves them out and fills the process's defaults) under `requirements`.
   */
  | {
      readonly kind: 'process';
      readonly process: CommandLineTool | ExpressionTool | Operation;
      readonly inputs: Readonly<Record<string, unknown>>;
      readonly requirements: EffectiveRequirements;
    }
  /** Add `jobs` to the task (possibly none: an empty scatter); this job ends with `gatherJob(gather)` after them. */
  | { readonly kind: 'expand'; readonly jobs: readonly CwlNewJob[]; readonly gather: CwlGatherPayload };

export async function resolveJob(run: CwlRun, key: string, payload: CwlJobPayload, outputsOf: OutputsOf, options: ResolveOptions = {}): Promise<CwlResolution> {
  if (payload.kind === 'root') return runProcess(run, { key: ROOT_JOB_KEY, path: [] }, payload.inputs, options);
  const { chain, workflow, step } = locateStep(run.root, payload.path);
  const stepOptions: StepOptions = {
    ...options,
    requirements: effectiveRequirements([...chain, workflow], step, undefined, run.jobRequirements),
    cwlVersion: workflow.cwlVersion,
  };
  let linked: CwlInputObject;
  if (payload.kind === 'instance') linked = payload.inputs;
  else {
    linked = linkStepInputs(step, valuesFrom(payload.sources, outputsOf));
    if (step.scatter.length > 0) {
      const { instances, shape } = expandScatter(step, linked);
      const jobs = instances.map((inputs, index): CwlNewJob => {
        return { key: instanceJobKey(key, index), deps: [], payload: { kind: 'instance', path: payload.path, index, inputs } };
      });
      return { kind: 'expand', jobs, gather: { kind: 'scatter', shape, instances: jobs.map((j) => j.key) } };
    }
  }
  const inputs = await evaluateStepInputs(step, linked, stepOptions);
  if (!(await evaluateWhen(step, inputs, stepOptions))) return { kind: 'skipped', outputs: skippedOutputs(step) };
  return runProcess(run, { key, path: payload.path }, inputs, options);
}

/** The outputs of a job that expanded, once every job it added has ended. */
export function gatherJob(run: CwlRun, gather: CwlGatherPayload, outputsOf: OutputsOf, options: ResolveOptions = {}): CwlOutputObject {
  if (gather.kind === 'scatter') return gatherScatter(gather.shape, gather.instances.map(outputsOf));
  const { process } = locateProcess(run.root, gather.path, run.jobRequirements);
  if (process.class !== 'Workflow') throw new Error(`${gather.path.join(' > ') || 'the root'} runs a ${process.class}, not a workflow`);
  return resolveWorkflowOutputs(process, valuesFrom(gather.sources, outputsOf), options.ontology ? { ontology: options.ontology } : {});
}

/** A process with its inputs known: a workflow expands into its steps, anything else is run by the engine. */
async function runProcess(
  run: CwlRun,
  scope: { key: string; path: readonly string[] },
  values: Readonly<Record<string, unknown>>,
  options: ResolveOptions,
): Promise<CwlResolution> {
  const { process, requirements } = locateProcess(run.root, scope.path, run.jobRequirements);
  if (process.class !== 'Workflow') return { kind: 'process', process, inputs: values, requirements };
  const inputs = await bindWorkflowInputs(process, values, options);
  return { kind: 'expand', ...expandWorkflow(process, scope, inputs) };
}

/** `valuesOf` over a payload's sources and the ended jobs' outputs. */
function valuesFrom(sources: Readonly<Record<string, CwlValueSource>>, outputsOf: OutputsOf): ValuesOf {
  return (id) => {
    const source = sources[id];
    if (source === undefined) throw new Error(`the payload says nothing of the source ${id}`);
    return 'value' in source ? source.value : outputsOf(source.job)?.[source.output];
  };
}
