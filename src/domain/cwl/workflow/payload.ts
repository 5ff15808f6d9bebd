import type { CwlInputObject, CwlValue } from '../model.js';
import type { ScatterShape } from './scatter.js';

/**
 * What the engine stores for CWL's deferred jobs (docs/cwl.md, "Workflows"): plain JSON, written when a job is made
 * and given back to the resolver (resolve.ts) when the job's dependencies have ended.
 *
 * A CWL run is a task. The task keeps, once, the run's document (normalized and packed: every `run` inlined, so a
 * process is found from the root by the ids of the steps that lead to it) and the job object's `cwl:requirements`.
 * It starts with one job, the root, whose payload holds the job object's values. Resolving a job gives one of:
 * run a process (a CommandLineTool, an ExpressionTool), skip (`when` was false), or expand: add jobs to the task
 * (a workflow's steps, a scatter's instances), each with its key, the keys it waits for and its payload, while the
 * expanding job waits for all of them and then ends with the outputs its gather payload describes.
 *
 * Job keys name jobs within the task, the way CWL ids name steps: `main` is the root, `main/align` a step of the
 * root workflow, `main/align[3]` instance 3 of its scatter, `main/qc/trim` a step of the subworkflow run by step
 * `qc`, `main/qc[0]/trim` the same inside the first instance of a scattered subworkflow. Step names never hold `/`
 * (it separates the segments of an id), and a `[` or `%` in a name is written `%5B` or `%25`, so keys are unique.
 */

/** Where one source's value comes from. */
export type CwlValueSource =
  /** The output `output` of the job `job` of the same task (it has ended: succeeded, or skipped with nulls). */
  | { readonly job: string; readonly output: string }
  /** A value known when the job was made: an input of the workflow that holds the step. */
  | { readonly value: CwlValue };

/** The run's root process (a workflow, or a single tool), with the job object's values (not bound yet). */
export interface CwlRootJob {
  readonly kind: 'root';
  readonly inputs: Readonly<Record<string, unknown>>;
}

/** A workflow step: its inputs are linked from `sources` when the jobs they name have ended. */
export interface CwlStepJob {
  readonly kind: 'step';
  /** The ids of the steps from the root workflow down to this step (one id for a step of the root workflow). */
  readonly path: readonly string[];
  /** For each source id the step's `in` entries name (absolute, as in the model), where its value comes from. */
  readonly sources: Readonly<Record<string, CwlValueSource>>;
}

/** One instance of a scattered step, with its input object (after scatter; loadContents and valueFrom to come). */
export interface CwlScatterInstanceJob {
  readonly kind: 'instance';
  readonly path: readonly string[];
  /** Its number in the scatter's layout. */
  readonly index: number;
  readonly inputs: CwlInputObject;
}

export type CwlJobPayload = CwlRootJob | CwlStepJob | CwlScatterInstanceJob;

/** What an expanding job keeps to make its outputs once the jobs it added have ended. */
export type CwlGatherPayload =
  /** A scatter: instance i is the job `instances[i]`; its outputs are gathered into lists (gatherScatter). */
  | { readonly kind: 'scatter'; readonly shape: ScatterShape; readonly instances: readonly string[] }
  /** A workflow (the root, or a step's subworkflow, `path` leading to that step): its outputs by `outputSource`. */
  | { readonly kind: 'workflow'; readonly path: readonly string[]; readonly sources: Readonly<Record<string, CwlValueSource>> };

/** A job an expansion adds to the task. */
export interface CwlNewJob {
  readonly key: string;
  /** Keys of jobs of the same expansion that must end (succeed, or be skipped) before this one is resolved. */
  readonly deps: readonly string[];
  readonly payload: CwlJobPayload;
}

/** The key of the root job. */
export const ROOT_JOB_KEY = 'main';

export const stepJobKey = (parent: string, stepName: string): string => `${parent}/${stepName.replace(/[%[]/g, encodeURIComponent)}`;

export const instanceJobKey = (step: string, index: number): string => `${step}[${index}]`;
