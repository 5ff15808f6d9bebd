/**
 * CWL Workflow semantics as pure functions (docs/cwl.md, "Workflows"): the step graph, step inputs (source,
 * linkMerge, pickValue, default, loadContents, valueFrom), `when`, scatter and gather, workflow outputs, requirement
 * inheritance, and the deferred jobs the engine makes of them (payload.ts, resolve.ts).
 */
export { WorkflowRunError } from './errors.js';
export { planWorkflow, type PlannedOutput, type PlannedStep, type PlannedStepInput, type SourceLink, type WorkflowPlan } from './graph.js';
export { mergeLinks, type Sink } from './link-merge.js';
export { effectiveRequirements, findRequirement, type EffectiveRequirements, type RequirementHolder } from './requirements.js';
export { evaluateStepExpression, type StepOptions } from './step-expressions.js';
export { evaluateStepInputs, linkStepInputs, resolveStepInputs, type ValuesOf } from './step-inputs.js';
export { evaluateWhen, skippedOutputs } from './conditional.js';
export { expandScatter, gatherScatter, type ScatterExpansion, type ScatterLayout, type ScatterShape } from './scatter.js';
export { resolveWorkflowOutputs } from './outputs.js';
export { locateProcess, locateStep, type LocatedStep } from './locate.js';
export { bindWorkflowInputs, expandWorkflow, type WorkflowExpansion, type WorkflowScope } from './expand.js';
export {
  instanceJobKey,
  ROOT_JOB_KEY,
  stepJobKey,
  type CwlGatherPayload,
  type CwlJobPayload,
  type CwlNewJob,
  type CwlRootJob,
  type CwlScatterInstanceJob,
  type CwlStepJob,
  type CwlValueSource,
} from './payload.js';
export { gatherJob, resolveJob, type CwlResolution, type CwlRun, type OutputsOf, type ResolveOptions } from './resolve.js';
