import { DataPathError, parseDataItemName } from '../client/data-names.js';
import type { RunParameters } from '../client/types.js';
import { usageError } from './exit.js';
import { didYouMean } from './not-found.js';
import { parameterProblem, typedValue } from './parameter-values.js';

/**
 * `workflow run --input NODE=DATA_NAME --output NODE=DATA_NAME --param NODE.PARAM=VALUE`: a run without a template
 * file. Each option is filled into the run parameters (the workflow's own run template, or a `-p` file) and checked
 * against the workflow's template first: an unknown node or parameter is refused naming the nearest one, a value of
 * the wrong type or range naming the option; every problem is reported at once (exit 2), before any request starts
 * a task.
 */

export interface RunOptions {
  input?: string[];
  output?: string[];
  param?: string[];
}

/** Commander's collector for an option that may be given several times. */
export const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];

export const hasRunOptions = (options: RunOptions): boolean =>
  Boolean(options.input?.length || options.output?.length || options.param?.length);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `LEFT=RIGHT` split at the first `=`, or undefined. */
function assignment(text: string): [string, string] | undefined {
  const at = text.indexOf('=');
  return at > 0 ? [text.slice(0, at), text.slice(at + 1)] : undefined;
}

/** `--input`/`--output` values grouped by node, in the order given (several for one node are its items, in order). */
function dataByNode(flag: '--input' | '--output', values: string[], nodes: Record<string, unknown>, account: string, problems: string[]): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  const kind = flag === '--input' ? 'input (loaddata)' : 'output (storedata)';
  for (const text of values) {
    const parts = assignment(text);
    if (!parts || parts[1] === '') {
      problems.push(`${flag} '${text}': expected NODE=DATA_NAME, e.g. ${flag} ${Object.keys(nodes)[0] ?? 'NODE'}=/reads/a.fastq`);
      continue;
    }
    const [node, name] = parts;
    if (!(node in nodes)) {
      problems.push(`${flag} '${text}': the workflow has no ${kind} node '${node}'${didYouMean(node, Object.keys(nodes))}`);
      continue;
    }
    try {
      parseDataItemName(name, account);
    } catch (error) {
      problems.push(`${flag} '${text}': ${error instanceof DataPathError ? error.message : String(error)}`);
      continue;
    }
    byNode.set(node, [...(byNode.get(node) ?? []), name]);
  }
  return byNode;
}

type Entry = { data?: Array<{ name: string; [key: string]: unknown }>; [key: string]: unknown };

/** A template entry whose data items are `names`, each keeping the other members (enid, property) of its first item. */
function withData<T extends Entry>(entry: T | undefined, names: string[]): T {
  const first = entry?.data?.[0] ?? {};
  return { ...(entry as T), data: names.map((name) => ({ ...first, name })) };
}

function fillParameters(values: string[], reference: RunParameters, target: RunParameters, problems: string[]): void {
  const nodes = reference.Parameters ?? {};
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
    const problem = parameterProblem(spec, value);
    if (problem) problems.push(`--param '${text}': ${node}.${name} ${problem}`);
    else if (spec.variable === false && JSON.stringify(value) !== JSON.stringify(spec.value)) problems.push(`--param '${text}': ${node}.${name} is fixed by the workflow to ${JSON.stringify(spec.value)}`);
    else {
      target.Parameters ??= {};
      const entry = (target.Parameters[node] ??= { parameters: {} });
      entry.parameters ??= {};
      entry.parameters[name] = { ...(isObject(entry.parameters[name]) ? entry.parameters[name] : {}), value };
    }
  }
}

/**
 * `base` (run parameters) with the options filled in, checked against `reference` (the workflow's run template);
 * `account` is the caller's, for data names without one.
 */
export function fillRun(base: RunParameters, reference: RunParameters, options: RunOptions, account: string): RunParameters {
  const filled: RunParameters = structuredClone(base);
  const problems: string[] = [];
  const inputs = dataByNode('--input', options.input ?? [], reference.Inputs ?? {}, account, problems);
  const outputs = dataByNode('--output', options.output ?? [], reference.Outputs ?? {}, account, problems);
  for (const [node, names] of inputs) (filled.Inputs ??= {})[node] = withData(filled.Inputs?.[node] ?? reference.Inputs?.[node], names);
  for (const [node, names] of outputs) (filled.Outputs ??= {})[node] = withData(filled.Outputs?.[node] ?? reference.Outputs?.[node], names);
  fillParameters(options.param ?? [], reference, filled, problems);
  if (problems.length > 0) throw usageError(`${problems.length === 1 ? problems[0] : `the run options do not fit the workflow:\n  ${problems.join('\n  ')}`}`);
  return filled;
}
