import type { ParameterDefinition, PortDefinition, ToolDefinition } from '../tools/types.js';
import { RenderError } from './errors.js';
import { renderTemplate } from './jinja.js';
import { checkUserString, wrap } from './sentinel.js';
import { finishCommand, quoteWord, type UserValue } from './shell.js';
import { JOB_DIRECTORY, relocateJobDirectory } from './work-dir.js';

/**
 * Rendering a tool node's command for one job (docs/wire.md §5).
 *
 * A non-empty `cmd_template` is rendered with `@huggingface/jinja` (jinja.ts); an empty one is
 * assembled from the definition (assemble below). Either way every user string — file paths
 * (their basenames come from data names) and string parameter values — enters wrapped in
 * sentinels and leaves quoted for the shell context it lands in (shell.ts), or the render fails
 * with a RenderError. Numbers and booleans go in as they are.
 */

export { RenderError, type RenderFailure } from './errors.js';

/** Where a job's file is as its command sees it: `/var/data/inputs/<input>/<name>`, `/var/data/outputs/<output>/<name>`. */
export const jobFilePath = (kind: 'inputs' | 'outputs', port: string, name: string): string => `${JOB_DIRECTORY}/${kind}/${port}/${name}`;

export { JOB_DIRECTORY } from './work-dir.js';

export interface RenderInput {
  tool: ToolDefinition;
  /** Per input name, the files as the command sees them (absolute paths under /var/data). */
  inputs: Record<string, string[]>;
  /** Per output name, the files the command must write (absolute paths under /var/data). */
  outputs: Record<string, string[]>;
  /** Parameter values after defaults were applied and types checked (string | number | boolean | null). */
  parameters: Record<string, unknown>;
  /**
   * Where the command runs when that is not /var/data: the `runtime.outdir` of an exported CWL tool run by another
   * runner. The template's own `/var/data` paths then name it instead (work-dir.ts); the file paths given above are
   * used as they are.
   */
  workDir?: string;
}

export interface RenderedCommand {
  /** The shell command (run as `sh -c <command>` with cwd /var/data). Shown to users as is. */
  command: string;
  /** Sandbox path connected to the process's stdin (the tool's `stdin: true` input), if any. */
  stdin?: string;
  /** Sandbox path the process's stdout is written to (the tool's `stdout: true` output), if any. */
  stdout?: string;
}

type Files = Record<string, string[]>;

/** Declared names first (in declaration order), then any extra names the caller passed. */
const names = (declared: Record<string, unknown>, given: Record<string, unknown>): string[] => [...new Set([...Object.keys(declared), ...Object.keys(given)])];

function checkFiles(kind: 'inputs' | 'outputs', files: Files, userValues: UserValue[]): void {
  for (const [name, list] of Object.entries(files)) {
    if (!Array.isArray(list)) throw new RenderError(`${kind}.${name} must be a list of paths`);
    list.forEach((path, i) => {
      const member = `${kind}.${name}[${i}]`;
      if (typeof path !== 'string') throw new RenderError(`${member} must be a path string`);
      checkUserString(path, member);
      userValues.push({ member, value: path });
    });
  }
}

function checkParameters(parameters: Record<string, unknown>, userValues: UserValue[]): void {
  for (const [name, value] of Object.entries(parameters)) {
    const member = `parameters.${name}`;
    if (typeof value === 'string') {
      checkUserString(value, member);
      userValues.push({ member, value });
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new RenderError(`${member} must be a finite number, not ${value}`);
    } else if (value !== null && value !== undefined && typeof value !== 'boolean') {
      throw new RenderError(`${member} must be a string, number, boolean or null, not ${Array.isArray(value) ? 'a list' : typeof value}`);
    }
  }
}

function streamFile(kind: 'inputs' | 'outputs', ports: Record<string, PortDefinition>, files: Files): string | undefined {
  const streams = Object.values(ports).filter((p) => p.stream);
  const stream = kind === 'inputs' ? 'stdin' : 'stdout';
  if (streams.length > 1) throw new RenderError(`only one of ${kind} may be ${stream}, but ${streams.map((p) => p.name).join(' and ')} are`);
  const port = streams[0];
  if (!port) return undefined;
  const list = files[port.name] ?? [];
  if (list.length > 1) throw new RenderError(`${kind}.${port.name} is connected to ${stream} but has ${list.length} files`);
  return list[0];
}

function templateContext(input: RenderInput): Record<string, unknown> {
  const { tool } = input;
  const files = (declared: Record<string, PortDefinition>, given: Files): Record<string, { path: string }[]> =>
    Object.fromEntries(names(declared, given).map((name) => [name, (given[name] ?? []).map((path) => ({ path: wrap(path) }))]));
  const parameters = Object.fromEntries(
    Object.entries(input.parameters)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, typeof value === 'string' ? wrap(value) : value]),
  );
  return {
    inputs: files(tool.inputs, input.inputs),
    outputs: files(tool.outputs, input.outputs),
    parameters,
    requirements: {
      container: { image: tool.image, type: 'docker' },
      resources: {
        cpu: tool.resources.cpu,
        mem: `${tool.resources.memMb}m`,
        disk: `${tool.resources.diskMb}m`,
        network: tool.resources.network,
        port: [],
      },
    },
  };
}

/**
 * Text written by the tool's author (prefix, separator, item separator) in an assembled command.
 * Whitespace separates words (any run becomes one space); every other run is one shell word,
 * kept bare when it only holds safe characters and single-quoted otherwise — so a prefix such as
 * `>` is passed as an argument, never read as shell syntax (use `stdout: true` to redirect).
 */
const authorText = (text: string): string =>
  text
    .split(/(\s+)/)
    .map((run) => (run === '' ? '' : /^\s+$/.test(run) ? ' ' : quoteWord(run)))
    .join('');

/**
 * An empty `cmd_template`: the command is assembled from the definition, for each input, then
 * each parameter, then each output, in declaration order; members are separated by one space.
 *
 * A member contributes `prefix` + `separator` + its values, concatenated exactly, so the
 * separator decides whether the prefix is its own word: prefix `-o`, separator ` ` gives
 * `-o /var/data/x`; prefix `--threads=`, separator `` gives `--threads=4`; prefix `-I`,
 * separator `` gives `-I/var/data/x`. Several files are joined with `item.separator`: ` ` gives
 * separate words (`a.fq b.fq`), `,` gives one word (`a.fq,b.fq`), ` -I ` repeats an option.
 * A flag contributes its prefix alone when true and nothing when false; a parameter whose value
 * is null, '' or absent, and a port with no files, contribute nothing. Stream ports (`stdin` /
 * `stdout`) are not on the command line: they are returned as `stdin` / `stdout`.
 */
function assemble(tool: ToolDefinition, inputs: Files, outputs: Files, parameters: Record<string, unknown>): string {
  const port = (def: PortDefinition, files: string[]): string => {
    if (def.stream || files.length === 0) return '';
    return authorText(def.prefix) + authorText(def.separator) + files.map(wrap).join(authorText(def.itemSeparator));
  };
  const parameter = (def: ParameterDefinition, value: unknown): string => {
    const member = `parameters.${def.name}`;
    if (value === undefined || value === null || value === '') return '';
    if (def.type === 'flag') {
      if (typeof value !== 'boolean') throw new RenderError(`${member} is a flag and must be true or false`);
      return value ? authorText(def.prefix) : '';
    }
    // Coerced values are strings and numbers; anything else (a list given where a number was expected) shows as JSON.
    const text = typeof value === 'string' ? wrap(value) : typeof value === 'number' ? String(value) : JSON.stringify(value);
    return authorText(def.prefix) + authorText(def.separator) + text;
  };
  const parts = [
    ...Object.values(tool.inputs).map((def) => port(def, inputs[def.name] ?? [])),
    ...Object.values(tool.parameters).map((def) => parameter(def, parameters[def.name])),
    ...Object.values(tool.outputs).map((def) => port(def, outputs[def.name] ?? [])),
  ];
  return parts
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
}

/** Marker characters escaped to text (`tojson(ensure_ascii=true)` writes `\ue000`). */
const ESCAPED_MARKER = /\\u[eE]00[01]/;

export function renderCommand(input: RenderInput): RenderedCommand {
  const { tool } = input;
  const userValues: UserValue[] = [];
  checkFiles('inputs', input.inputs, userValues);
  checkFiles('outputs', input.outputs, userValues);
  checkParameters(input.parameters, userValues);

  let text: string;
  if (tool.cmdTemplate.trim() === '') {
    text = assemble(tool, input.inputs, input.outputs, input.parameters);
  } else {
    text = renderTemplate(tool.cmdTemplate, templateContext(input));
    if (ESCAPED_MARKER.test(text)) {
      throw new RenderError('cmd_template escaped a user value to text (e.g. tojson with ensure_ascii), so it cannot be quoted', 'placement');
    }
  }
  if (input.workDir !== undefined && input.workDir !== JOB_DIRECTORY) {
    checkUserString(input.workDir, 'the working directory');
    text = relocateJobDirectory(text, input.workDir);
    userValues.push({ member: 'the working directory', value: input.workDir });
  }
  const command = finishCommand(text, userValues);

  const result: RenderedCommand = { command };
  const stdin = streamFile('inputs', tool.inputs, input.inputs);
  const stdout = streamFile('outputs', tool.outputs, input.outputs);
  if (stdin !== undefined) result.stdin = stdin;
  if (stdout !== undefined) result.stdout = stdout;
  return result;
}
