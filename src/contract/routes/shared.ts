/** What several route tables share: the empty answers of writes and GeneDock's path prefixes. */

/** The empty 200 of a write (INTERFACE.md §4). */
export const empty = { type: 'null', description: 'an empty body' } as const;
export const emptyList = { type: 'array', maxItems: 0, description: 'always empty: gdflow has no WDL workflows' } as const;

export const P = '/accounts/:account/projects/:project';
export const TES = '/ga4gh/tes/v1';
