import { isObject, type JsonObject } from '../../json.js';
import type { Requirement } from '../model.js';

/**
 * What a CWL run's task keeps (docs/cwl.md, "Running CWL"): the document as posted (packed: every `run` inlined),
 * with its data locations made host file: URIs, the URI of the process the run runs, and the job object's
 * `cwl:requirements`. Workers load the document from here, never from the user's files.
 */
export interface CwlTaskPlan {
  readonly document: JsonObject;
  /** The process's URI: the document's URI and the fragment of a `$graph` entry (`#main`). */
  readonly process: string;
  /** The job object's `cwl:requirements`, as read (readJob: plain data; absent: none). */
  readonly requirements?: readonly Requirement[];
}

/** The URI the posted document is loaded as: it has no file of its own. Ids and messages are relative to it. */
export const CWL_DOCUMENT_URI = 'file:///document.cwl';

/** The key of a CWL run's task plan. */
const KEY = 'cwl';

export const cwlTaskPlan = (plan: CwlTaskPlan): JsonObject => ({ [KEY]: plan });

/** The CWL plan of a task, or undefined when the task is not a CWL run. */
export function cwlPlanOf(plan: JsonObject): CwlTaskPlan | undefined {
  const value = plan[KEY];
  if (!isObject(value) || !isObject(value.document) || typeof value.process !== 'string') return undefined;
  const requirements = Array.isArray(value.requirements) ? { requirements: value.requirements as Requirement[] } : {};
  return { document: value.document, process: value.process, ...requirements };
}
