/**
 * gdflow's CWL front end: documents and job objects into the typed model (model.ts), and CWL's type
 * system over values. Pure: files are read through a DocumentSource the caller gives
 * (src/engine/cwl/file-source.ts reads local files). docs/cwl.md ("Documents") describes it.
 */
export type * from './model.js';
export { acceptsNull, isDirectory, isFile, membersOf, NULL_TYPE } from './model.js';
export { CwlValidationError, Diagnostics, displayUri, formatIssue, formatPosition, type CwlIssue, type SourcePosition } from './errors.js';
export { loadDocument, type LoadedDocument, type ResolvedDocument } from './document/load.js';
export { packDocument, type PackedDocument } from './document/pack.js';
export { InMemoryDocumentSource, type DocumentSource } from './document/source.js';
export { loadJob, readJob, type LoadedJob } from './job.js';
export { bindInputs } from './types/inputs.js';
export { coerceValue, type CoercionContext } from './types/coerce.js';
export { describeType } from './types/describe.js';
export { nameParts, type ValuePlace } from './types/files.js';
export { checkFormats, type FormatOntology } from './types/format.js';
export { FormatGraph, loadFormatOntology } from './types/ontology.js';
export { resolveReference, shortname, splitFragment } from './uri.js';
export { ContentsTooLargeError, LOAD_CONTENTS_LIMIT, loadContents, type FileContentReader } from './contents.js';
