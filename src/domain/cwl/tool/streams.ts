import type { CommandLineTool } from '../model.js';
import { ToolRunError } from './errors.js';
import type { ToolExpressions } from './expressions.js';
import { normalizeName } from './initial-workdir.js';

export interface Streams {
  /** An absolute path in the sandbox. */
  readonly stdin?: string;
  /** Relative to the outdir. */
  readonly stdout?: string;
  readonly stderr?: string;
}

/**
 * stdin, stdout and stderr of a CommandLineTool, evaluated: stdin a path (or null: none), relative ones taken from
 * the outdir; stdout and stderr file names that must stay in the outdir (relative, no `..`). The `stdout` and
 * `stderr` output types already gave the tool a generated name when it named none (at load).
 */
export async function decideStreams(tool: CommandLineTool, expressions: ToolExpressions, outdir: string): Promise<Streams> {
  const streams: { stdin?: string; stdout?: string; stderr?: string } = {};
  if (tool.stdin !== undefined) {
    const stdin = await expressions.string('stdin', tool.stdin, null, true);
    if (stdin !== null && stdin !== '') streams.stdin = stdin.startsWith('/') ? stdin : `${outdir}/${normalizeName(stdin)}`;
  }
  for (const name of ['stdout', 'stderr'] as const) {
    const field = tool[name];
    if (field === undefined) continue;
    const file = await expressions.string(name, field);
    const normal = normalizeName(file);
    if (file === '' || file.startsWith('/') || normal === '..' || normal.startsWith('../') || file.split('/').includes('..')) {
      throw new ToolRunError(`${name} must be a file name relative to the output directory, not ${JSON.stringify(file)}`);
    }
    streams[name] = normal;
  }
  return streams;
}
