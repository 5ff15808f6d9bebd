/**
 * The built-in data steps. GeneDock workflows name them by these fixed application ids (see the
 * sample workflows) and by the node names `loaddata` and `storedata`.
 */
export const LOAD_STEP = { name: 'loaddata', appId: '55128c58f6f4067d63b956b5' } as const;
export const STORE_STEP = { name: 'storedata', appId: '55128c94f6f4067d63b956b6' } as const;

export type StepKind = 'load' | 'store' | 'tool';

export function stepKind(node: { name?: unknown; app_id?: unknown }): StepKind {
  if (node.app_id === LOAD_STEP.appId || node.app_id === LOAD_STEP.name || node.name === LOAD_STEP.name) return 'load';
  if (node.app_id === STORE_STEP.appId || node.app_id === STORE_STEP.name || node.name === STORE_STEP.name) return 'store';
  return 'tool';
}
