/**
 * Bindings and the small records parameters share. Fields that may hold a CWL expression are typed
 * `CwlExpression` (or `string | …`): a string that may contain `$(…)` parameter references or
 * `${…}` JavaScript bodies, left for the expression layer (src/domain/cwl/expressions/) to evaluate.
 */

/** A string that may contain `$(…)` or `${…}`; a string without them evaluates to itself. */
export type CwlExpression = string;

export type LoadListing = 'no_listing' | 'shallow_listing' | 'deep_listing';

/** How a value becomes command-line arguments (CommandLineBinding), with CWL's defaults filled in. */
export interface CommandLineBinding {
  /** Sort key among the arguments; default 0. An expression from v1.1 on. */
  readonly position: number | CwlExpression;
  readonly prefix?: string;
  /** Whether the prefix and the value are separate arguments; default true. */
  readonly separate: boolean;
  readonly itemSeparator?: string;
  /** Replaces the value (with `self` the input's value) before it is bound. */
  readonly valueFrom?: CwlExpression;
  /** With ShellCommandRequirement: quote the value for the shell; default true. */
  readonly shellQuote: boolean;
}

/** How a CommandLineTool output is collected (CommandOutputBinding). */
export interface CommandOutputBinding {
  /** Patterns relative to the output directory; each may be an expression giving one pattern or a list. */
  readonly glob: readonly CwlExpression[];
  readonly loadContents?: boolean;
  readonly loadListing?: LoadListing;
  readonly outputEval?: CwlExpression;
}

/**
 * A secondary file pattern (SecondaryFileSchema). Every shorthand is expanded: `.bai`,
 * `^.bai` (replace one extension), `.bai?` (not required), v1.0's plain strings.
 */
export interface SecondaryFileSpec {
  /** A pattern (`^` strips an extension) or an expression giving a pattern, File, or a list of them. */
  readonly pattern: CwlExpression;
  /**
   * Whether the file must exist. When the document says nothing: true on inputs, false on outputs
   * (CWL v1.2 §SecondaryFileSchema), already applied here.
   */
  readonly required: boolean | CwlExpression;
}
