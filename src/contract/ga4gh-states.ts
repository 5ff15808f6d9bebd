/**
 * The states of a GA4GH TES 1.1 task and of a WES 1.1 run: the two APIs name the same eleven, in the order of a task's
 * life. Which gdflow reaches, and from what, is domain/ga4gh/states.ts's (docs/ga4gh.md, "States").
 */
export const GA4GH_STATES = [
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

export type Ga4ghState = (typeof GA4GH_STATES)[number];

export const TES_STATES = GA4GH_STATES;
export type TesState = Ga4ghState;
export const WES_STATES = GA4GH_STATES;
export type WesState = Ga4ghState;
