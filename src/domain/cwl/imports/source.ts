import { isObject, type JsonObject } from '../../json.js';

/**
 * The CWL document a tool or workflow version imported from CWL keeps (the store's `cwl` column, migration 0011): a
 * packed CWL document and the process in it the version stands for (`#main`).
 */
export interface CwlSource {
  document: JsonObject;
  process: string;
}

/** A version's stored `cwl` as a CwlSource; undefined for a version written in GeneDock's format. */
export const cwlSourceOf = (cwl: unknown): CwlSource | undefined =>
  isObject(cwl) && isObject(cwl.document) && typeof cwl.process === 'string' ? { document: cwl.document, process: cwl.process } : undefined;
