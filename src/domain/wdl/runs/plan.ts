import { isObject, type JsonObject } from '../../json.js';
import type { WdlSources } from '../load.js';
import type { WdlRestart } from '../run/restart.js';

/**
 * What a WDL run's task keeps (docs/wdl.md, "Running WDL"): the documents as given, the task of the main document to
 * run instead of its workflow, the inputs JSON with File values made host paths, and where in the account's data store
 * the final outputs go. Workers load the documents from here.
 */
export interface WdlTaskPlan {
  readonly sources: { readonly main: string; readonly mainName: string; readonly files: { readonly [path: string]: string } };
  readonly target?: string;
  readonly inputs: JsonObject;
  /** A data path (`/home/admin/run1`). */
  readonly outputDir: string;
  /** A restart's calls to run again and their changes (run/restart.ts). */
  readonly restart?: WdlRestart;
}

const KEY = 'wdl';

export const wdlTaskPlan = (plan: WdlTaskPlan): JsonObject => ({ [KEY]: plan });

/** The WDL plan of a task, or undefined when the task is not a WDL run. */
export function wdlPlanOf(plan: JsonObject): WdlTaskPlan | undefined {
  const value = plan[KEY];
  if (!isObject(value) || !isObject(value.sources) || !isObject(value.inputs) || typeof value.outputDir !== 'string') return undefined;
  return value as unknown as WdlTaskPlan;
}

export const sourcesOf = (plan: WdlTaskPlan): WdlSources => ({ main: plan.sources.main, mainName: plan.sources.mainName, files: plan.sources.files });

/** The resolver that runs WDL's deferred jobs (src/engine/wdl). */
export const WDL_RESOLVER = 'wdl';

/** The key of a WDL run's root job. */
export const WDL_ROOT_KEY = 'main';
