/** The states of a TES 1.1 task, in the order of its life (docs/ga4gh.md says which gdflow reaches and how). */
export const TES_STATES = [
  'UNKNOWN',
  'QUEUED',
  'INITIALIZING',
  'RUNNING',
  'PAUSED',
  'COMPLETE',
  'EXECUTOR_ERROR',
  'SYSTEM_ERROR',
  'CANCELING',
  'CANCELED',
  'PREEMPTED',
] as const;

export type TesState = (typeof TES_STATES)[number];
