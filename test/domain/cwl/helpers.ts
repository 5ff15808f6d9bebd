import assert from 'node:assert/strict';
import { CwlValidationError, InMemoryDocumentSource, loadDocument, type CwlProcess, type LoadedDocument } from '../../../src/domain/cwl/index.js';

/** Small CWL documents in memory under file:///w/, loaded as the CLI would load files. */
export const BASE = 'file:///w/';

export function source(files: Record<string, string>): InMemoryDocumentSource {
  return new InMemoryDocumentSource(Object.entries(files).map(([name, text]) => [BASE + name, text] as const));
}

export async function load(files: Record<string, string>, main = Object.keys(files)[0]!): Promise<LoadedDocument> {
  return loadDocument(BASE + main, source(files));
}

export async function loadProcess(files: Record<string, string>, main?: string): Promise<CwlProcess> {
  return (await load(files, main)).process;
}

/** The load's CwlValidationError; fails the test when the documents load. */
export async function loadError(files: Record<string, string>, main?: string): Promise<CwlValidationError> {
  try {
    await load(files, main);
  } catch (error) {
    assert.ok(error instanceof CwlValidationError, `expected a CwlValidationError, got ${String(error)}`);
    return error;
  }
  assert.fail('the documents loaded; an error was expected');
}

/** Asserts one of the error's issues matches `pattern` (and is at `line` of `file` when given). */
export function assertIssue(error: CwlValidationError, pattern: RegExp, where?: { file: string; line: number }): void {
  const issue = error.issues.find((i) => pattern.test(i.message));
  assert.ok(issue, `no issue matches ${pattern}; issues:\n${error.message}`);
  if (where) {
    assert.equal(issue.at?.uri, BASE + where.file, `issue at ${JSON.stringify(issue.at)}`);
    assert.equal(issue.at?.line, where.line, `issue at ${JSON.stringify(issue.at)}`);
  }
}

/** A minimal valid CommandLineTool header for a test document. */
export const TOOL = 'cwlVersion: v1.2\nclass: CommandLineTool\n';

/**
 * A document written indented in a test file, as the text it stands for: the first empty line and
 * the indentation common to all lines removed, a final newline kept. Interpolated values must be
 * single lines.
 */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((out, part, i) => out + part + (i < values.length ? String(values[i]) : ''), '');
  const lines = text
    .replace(/^\n/, '')
    .replace(/\n[ ]*$/, '')
    .split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
  return `${lines.map((l) => l.slice(indent)).join('\n')}\n`;
}
