import { DataPathError, parseDataItemName } from '../client/data-names.js';
import { fillRunParameters, type RunValues } from '../client/run-parameters.js';
import type { RunParameters } from '../client/types.js';
import { usageError } from './exit.js';
import { didYouMean } from './not-found.js';
import { parameterProblem, typedValue } from './parameter-values.js';

/**
 * `workflow run --input NODE=DATA_NAME --output NODE=DATA_NAME --param NODE.PARAM=VALUE`: a run without a template
 * file. The options are read into the SDK's RunValues and checked against the workflow's run template first: an
 * unknown node or parameter is refused naming the nearest one, a value of the wrong type or range, or one the
 * workflow fixed, naming the option; every problem is reported at once (exit 2), before any request starts a task.
 * The SDK's fillRunParameters then fills them into the run parameters (the template itself, or a `-p` file).
 */

export interface RunOptions {
  input?: string[];
  output?: string[];
  param?: string[];
}

/** Commander's collector for an option that may be given several times. */
export const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];

export const hasRunOptions = (options: RunOptions): boolean => Boolean(options.input?.length || options.output?.length || options.param?.length);

/** `LEFT=RIGHT` split at the first `=`, or undefined. */
function assignment(text: string): [string, string] | undefined {
  const at = text.indexOf('=');
  return at > 0 ? [text.slice(0, at), text.slice(at + 1)] : undefined;
}

/** `--input`/`--output` values by node, in the order given (several for one node are its items, in order). */
function dataByNode(flag: '--input' | '--output', values: string[], nodes: string[], account: string, problems: string[]): Record<string, string[]> {
  const byNode: Record<string, string[]> = {};
  const kind = flag === '--input' ? 'input (loaddata)' : 'output (storedata)';
  for (const text of values) {
    const parts = assignment(text);
    if (!parts || parts[1] === '') {
      problems.push(`${flag} '${text}': expected NODE=DATA_NAME, e.g. ${flag} ${nodes[0] ?? 'NODE'}=/reads/a.fastq`);
      continue;
    }
    const [node, name] = parts;
    if (!nodes.includes(node)) {
      problems.push(`${flag} '${text}': the workflow has no ${kind} node '${node}'${didYouMean(node, nodes)}`);
      continue;
    }
    try {
      parseDataItemName(name, account);
    } catch (error) {
      problems.push(`${flag} '${text}': ${error instanceof DataPathError ? error.message : String(error)}`);
      continue;
    }
    (byNode[node] ??= []).push(name);
  }
  return byNode;
}

/** `--param` values by node and parameter, typed as the template declares each. */
function parametersByNode(values: string[], reference: RunParameters, problems: string[]): Record<string, Record<string, unknown>> {
  const nodes = reference.Parameters ?? {};
  const byNode: Record<string, Record<string, unknown>> = {};
  for (const text of values) {
    const parts = assignment(text);
    const dot = parts ? parts[0].indexOf('.') : -1;
    if (!parts || dot <= 0 || dot === parts[0].length - 1) {
      problems.push(`--param '${text}': expected NODE.PARAM=VALUE, e.g. --param ${Object.keys(nodes)[0] ?? 'NODE'}.threads=4`);
      continue;
    }
    const node = parts[0].slice(0, dot);
    const name = parts[0].slice(dot + 1);
    const known = nodes[node]?.parameters;
    if (!known) {
      problems.push(`--param '${text}': the workflow has no tool node '${node}'${didYouMean(node, Object.keys(nodes))}`);
      continue;
    }
    const spec = known[name];
    if (!spec) {
      problems.push(`--param '${text}': node '${node}' has no parameter '${name}'${didYouMean(name, Object.keys(known))}`);
      continue;
    }
    const value = typedValue(parts[1], spec.type);
    const fixed = spec.variable === false && JSON.stringify(value) !== JSON.stringify(spec.value);
    const problem = parameterProblem(spec, value) ?? (fixed ? `is fixed by the workflow to ${JSON.stringify(spec.value)}` : undefined);
    if (problem) problems.push(`--param '${text}': ${node}.${name} ${problem}`);
    else (byNode[node] ??= {})[name] = value;
  }
  return byNode;
}

/**
 * `base` with the template's entries for what `values` names and `base` lacks: a `-p` file may hold only some
 * nodes (the server takes the template's for the others), and fillRunParameters fills entries that are there.
 */
function withEntries(base: RunParameters, reference: RunParameters, values: Required<RunValues>): RunParameters {
  const out = structuredClone(base);
  for (const node of Object.keys(values.inputs)) (out.Inputs ??= {})[node] ??= structuredClone(reference.Inputs![node]!);
  for (const node of Object.keys(values.outputs)) (out.Outputs ??= {})[node] ??= structuredClone(reference.Outputs![node]!);
  for (const [node, parameters] of Object.entries(values.parameters)) {
    const entry = ((out.Parameters ??= {})[node] ??= { parameters: {} });
    for (const name of Object.keys(parameters)) (entry.parameters ??= {})[name] ??= structuredClone(reference.Parameters![node]!.parameters![name]!);
  }
  return out;
}

/**
 * `base` (run parameters) with the options filled in, checked against `reference` (the workflow's run template);
 * `account` is the caller's, for data names without one.
 */
export function fillRun(base: RunParameters, reference: RunParameters, options: RunOptions, account: string): RunParameters {
  const problems: string[] = [];
  const values: Required<RunValues> = {
    inputs: dataByNode('--input', options.input ?? [], Object.keys(reference.Inputs ?? {}), account, problems),
    outputs: dataByNode('--output', options.output ?? [], Object.keys(reference.Outputs ?? {}), account, problems),
    parameters: parametersByNode(options.param ?? [], reference, problems),
  };
  if (problems.length === 1) throw usageError(problems[0]!);
  if (problems.length > 1) throw usageError(`the run options do not fit the workflow:\n  ${problems.join('\n  ')}`);
  return fillRunParameters(withEntries(base, reference, values), values);
}
