/**
 * The built-in data steps. GeneDock workflows name them by these fixed application ids (see the
 * sample workflows) and by the node names `loaddata` and `storedata`. In TypeScript the `storedata` step is the
 * "save step" (SAVE_STEP, SaveJobSpec): it saves files into the data store (src/data), and "store" alone names the
 * database layer (src/store). Its GeneDock name, `store`/`storedata`, stays in the wire format, the graph's node
 * kind and the persisted job specs.
 */
export const LOAD_STEP = { name: 'loaddata', appId: '55128c58f6f4067d63b956b5' } as const;
export const SAVE_STEP = { name: 'storedata', appId: '55128c94f6f4067d63b956b6' } as const;

export type StepKind = 'load' | 'store' | 'tool';

/** The step an app_id names, or 'tool' for any other app_id. */
export function appIdKind(appId: unknown): StepKind {
  if (appId === LOAD_STEP.appId || appId === LOAD_STEP.name) return 'load';
  if (appId === SAVE_STEP.appId || appId === SAVE_STEP.name) return 'store';
  return 'tool';
}

/** What a node is: a step when its app_id or its name says so. */
export function stepKind(node: { name?: unknown; app_id?: unknown }): StepKind {
  const byAppId = appIdKind(node.app_id);
  if (byAppId !== 'tool') return byAppId;
  if (node.name === LOAD_STEP.name) return 'load';
  if (node.name === SAVE_STEP.name) return 'store';
  return 'tool';
}

/**
 * Why a node named `loaddata` or `storedata` has the wrong app_id, or undefined when it has the step's own (or is
 * no step by name). Such a node with a mistyped app_id would otherwise run as the step whatever its app_id says.
 */
export function stepAppIdProblem(node: { name?: unknown; app_id?: unknown }): string | undefined {
  const step = node.name === LOAD_STEP.name ? LOAD_STEP : node.name === SAVE_STEP.name ? SAVE_STEP : undefined;
  if (!step || appIdKind(node.app_id) === appIdKind(step.appId)) return undefined;
  return `is named ${step.name}, but its app_id '${String(node.app_id).slice(0, 200)}' is not the ${step.name} step's (${step.appId} or ${step.name})`;
}
