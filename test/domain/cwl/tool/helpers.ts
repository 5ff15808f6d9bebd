import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { pathToFileURL } from 'node:url';
import { bindInputs, type CommandLineTool, type CwlProcess, type ExpressionTool } from '../../../../src/domain/cwl/index.js';
import { prepareToolRun, ToolRunError, type ToolRun, type ToolRunOptions } from '../../../../src/domain/cwl/tool/index.js';
import { LocalFileAccess } from '../../../../src/engine/cwl/local-files.js';
import { JavaScriptSandbox } from '../../../../src/engine/js-sandbox/index.js';
import { loadProcess } from '../helpers.js';

/** The real QuickJS sandbox, one per test file. */
export const sandbox = new JavaScriptSandbox();
after(() => sandbox.close());

export const files = new LocalFileAccess();

export const RUNTIME = { outdir: '/var/data', tmpdir: '/tmp' } as const;

export async function commandLineTool(text: string): Promise<CommandLineTool> {
  const process: CwlProcess = await loadProcess({ 'tool.cwl': text });
  if (process.class !== 'CommandLineTool') throw new Error(`expected a CommandLineTool, got ${process.class}`);
  return process;
}

export async function expressionTool(text: string): Promise<ExpressionTool> {
  const process: CwlProcess = await loadProcess({ 'tool.cwl': text });
  if (process.class !== 'ExpressionTool') throw new Error(`expected an ExpressionTool, got ${process.class}`);
  return process;
}

/** A tool's run for a job, as the engine would prepare it (inputs bound, local files, the real sandbox). */
export async function prepare(text: string, job: Record<string, unknown> = {}, options: Partial<ToolRunOptions> = {}): Promise<ToolRun> {
  const tool = await commandLineTool(text);
  return prepareToolRun(tool, bindInputs(tool.inputs, job), RUNTIME, { files, evaluator: sandbox, ...options });
}

/** A temporary directory holding `contents` (path to text; a path ending in `/` is a directory), removed after the file's tests. */
export function tempTree(contents: Record<string, string | Uint8Array> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'gdflow-cwl-tool-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(contents)) {
    const full = join(root, path);
    if (path.endsWith('/')) mkdirSync(full, { recursive: true });
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
  }
  return root;
}

/** A File object of a job for a local path. */
export const fileAt = (path: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  class: 'File',
  location: pathToFileURL(path).href,
  ...extra,
});

export const directoryAt = (path: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  class: 'Directory',
  location: pathToFileURL(path).href,
  ...extra,
});

/** Asserts the promise fails with a ToolRunError (a permanent failure of the step) whose message matches. */
export const rejectsWith = (promise: Promise<unknown>, pattern: RegExp): Promise<void> =>
  assert.rejects(promise, (error: Error) => error instanceof ToolRunError && pattern.test(error.message));
