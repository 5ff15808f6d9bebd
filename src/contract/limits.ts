/**
 * Documented limits on what a request may carry (docs/api.md, "Limits"). Shared by the server, which enforces
 * them, and the OpenAPI document, which states them.
 */

/** Nesting of arrays and objects in any JSON body: deeper documents are refused before they are parsed. */
export const MAX_JSON_DEPTH = 64;

/** Characters of a tool's `cmd_template`. */
export const MAX_TEMPLATE_LENGTH = 64 * 1024;

/** Nesting of `{% if %}`, `{% for %}` and other block statements in a `cmd_template`. */
export const MAX_TEMPLATE_NESTING = 32;

/** `{% elif %}` branches of the `if` statements open at one point of a `cmd_template` (each nests one level). */
export const MAX_TEMPLATE_BRANCHES = 100;

/** Brackets (`(`, `[`, `{`) open at once in one `{{ }}` or `{% %}` tag of a `cmd_template`. */
export const MAX_TEMPLATE_BRACKETS = 32;

/** Operators (filters, member accesses, calls, brackets, arithmetic, comparisons, ...) in one tag of a `cmd_template`. */
export const MAX_TEMPLATE_OPERATORS = 256;

/** The largest tool or workflow version (nine decimal digits). */
export const MAX_VERSION = 999_999_999;
