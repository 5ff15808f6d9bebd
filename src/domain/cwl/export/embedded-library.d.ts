/**
 * The code of embedded/ bundled as one ES5 script defining the global `gdflow` (embedded/index.ts lists its
 * functions), for InlineJavascriptRequirement's expressionLib. It is built by scripts/build-cwl-embedded.mjs, part of
 * `npm run build`, into dist/src/domain/cwl/export/embedded-library.js: a string made from the source, never edited.
 */
export declare const EMBEDDED_LIBRARY: string;
