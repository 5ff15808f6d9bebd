import { InvalidInput } from '../errors.js';

/** A place in a source document: 1-based line and column, as editors show them. */
export interface SourcePosition {
  /** Absolute URI of the file (an `$import`ed or `$include`d file keeps its own). */
  readonly uri: string;
  readonly line: number;
  readonly column: number;
}

/** One problem found in a document or a job object. */
export interface CwlIssue {
  readonly message: string;
  readonly at?: SourcePosition;
  /**
   * The feature the document needs and gdflow does not support (a requirement class it does not know), when that is
   * the problem: cwl-runners exit 33 for these rather than 1, and name the feature.
   */
  readonly unsupported?: string;
}

/** `/dir/tool.cwl:12:5` for a file URI, the URI itself otherwise. */
export function formatPosition(at: SourcePosition): string {
  return `${displayUri(at.uri)}:${at.line}:${at.column}`;
}

/** A file URI as the path a user typed; other URIs unchanged. */
export function displayUri(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

export const formatIssue = (issue: CwlIssue): string => (issue.at ? `${formatPosition(issue.at)}: ${issue.message}` : issue.message);

/**
 * A document or job object that is not valid CWL. It lists every problem found (not only the
 * first), each with its file, line and column; the message is those lines. It is an InvalidInput,
 * so the server renders it as a 400 whose reason is the message.
 */
export class CwlValidationError extends InvalidInput {
  readonly issues: readonly CwlIssue[];
  constructor(issues: readonly CwlIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.issues = issues;
  }

  /** The features gdflow does not support, when every problem is one (else empty: the document is wrong). */
  get unsupportedFeatures(): string[] {
    return this.issues.every((i) => i.unsupported !== undefined) ? [...new Set(this.issues.map((i) => i.unsupported!))] : [];
  }
}

/** Collects errors and warnings while a document is read, so that one load reports them all. */
export class Diagnostics {
  readonly errors: CwlIssue[] = [];
  readonly warnings: CwlIssue[] = [];

  /** Records an error (once: a process reached twice reports its problems once). */
  error(message: string, at?: SourcePosition): void {
    add(this.errors, message, at);
  }

  /** Records an error that is a feature gdflow does not support (CwlIssue.unsupported). */
  unsupported(feature: string, message: string, at?: SourcePosition): void {
    add(this.errors, message, at, feature);
  }

  warn(message: string, at?: SourcePosition): void {
    add(this.warnings, message, at);
  }

  /** Throws a CwlValidationError with every error so far, if there is any. */
  throwIfErrors(): void {
    if (this.errors.length > 0) throw new CwlValidationError(this.errors);
  }
}

function add(issues: CwlIssue[], message: string, at: SourcePosition | undefined, unsupported?: string): void {
  const same = (i: CwlIssue): boolean => i.message === message && i.at?.uri === at?.uri && i.at?.line === at?.line && i.at?.column === at?.column;
  if (!issues.some(same)) issues.push({ message, ...(at ? { at } : {}), ...(unsupported !== undefined ? { unsupported } : {}) });
}
