/**
 * The canonical, typed model of a CWL document: what the front end (document/ and normalize/)
 * produces from any CWL v1.0, v1.1 or v1.2 document, and what the rest of gdflow (expressions,
 * command-line building, the engine, export) reads. One shape for each concept:
 *
 * - every id is an absolute URI, and every reference (`source`, `outputSource`, `scatter`, `run`,
 *   named types, `format`) is already resolved to what it names;
 * - every shorthand is expanded (map forms of `inputs`/`steps`/`in`/`fields`/`requirements`/`hints`,
 *   `File[]?`, `stdout`/`stderr`/`stdin`, `baseCommand` strings, string `arguments`,
 *   `secondaryFiles` patterns) and CWL's defaults of bindings are filled in;
 * - older versions are upgraded as cwltool upgrades them (see `CwlProcessBase.cwlVersion`).
 *
 * The model is plain data (no classes, no cycles) and serialises to JSON as it is.
 */
export type * from './model/bindings.js';
export type * from './model/process.js';
export type * from './model/requirements.js';
export type * from './model/types.js';
export type * from './model/values.js';
export { acceptsNull, membersOf, NULL_TYPE } from './model/types.js';
export { isDirectory, isFile } from './model/values.js';
