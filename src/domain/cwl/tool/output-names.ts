import type { ExpressionEvaluator } from '../expressions/index.js';
import type { CommandLineTool, CwlInputObject } from '../model.js';
import type { EffectiveRequirements } from '../workflow/requirements.js';
import { ToolExpressions } from './expressions.js';
import type { CwlRuntime } from './tool-run.js';

/** A name that globs to itself: relative, in the outdir, no pattern characters. */
const plainName = (name: string): boolean => name !== '' && !name.startsWith('/') && !/[*?[\]{}\\]/.test(name) && !name.split('/').includes('..');

/**
 * The files each output of a tool is collected from, known before the run where they can be (the call cache's
 * rule of outputs, docs/tasks.md "One cache for every language"): its globs evaluated with the run's inputs and runtime,
 * as collection evaluates them afterwards, when each gives plain file names in the outdir (`$(inputs.sample).json`
 * is `s1.json`). Undefined for an output that is more: a pattern, a glob that reads the exit code or cannot be
 * evaluated now, secondary files, a listing, no binding (it comes from cwl.output.json).
 */
export async function outputFileNames(
  tool: CommandLineTool,
  inputs: CwlInputObject,
  runtime: CwlRuntime,
  effective: EffectiveRequirements,
  evaluator: ExpressionEvaluator | undefined,
): Promise<Array<string[] | undefined>> {
  const { exitCode: _exitCode, ...before } = runtime;
  let expressions: ToolExpressions;
  try {
    expressions = new ToolExpressions(tool, effective, evaluator, structuredClone(inputs) as never, { ...before });
  } catch {
    return tool.outputs.map(() => undefined);
  }
  const names = async (output: CommandLineTool['outputs'][number]): Promise<string[] | undefined> => {
    const binding = output.outputBinding;
    if (!binding || binding.glob.length === 0 || output.secondaryFiles.length > 0 || binding.loadListing !== undefined) return undefined;
    const out: string[] = [];
    for (const glob of binding.glob) {
      if (glob.includes('exitCode')) return undefined;
      const value = await expressions.evaluate(glob);
      const list = Array.isArray(value) ? value : [value];
      for (const item of list) {
        if (typeof item !== 'string') return undefined;
        const name = item.startsWith(`${runtime.outdir}/`) ? item.slice(runtime.outdir.length + 1) : item;
        if (!plainName(name)) return undefined;
        out.push(name);
      }
    }
    return out;
  };
  return Promise.all(tool.outputs.map((output) => names(output).catch(() => undefined)));
}
