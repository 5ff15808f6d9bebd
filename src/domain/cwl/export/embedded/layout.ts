import { basename, inputFileNames, outputFileNames } from '../../../tasks/file-names.js';
import type { CwlFile, CwlInputs, EmbeddedLayout, WorkDirEntry } from './types.js';

/**
 * The files of an exported tool where gdflow's job puts them: inputs at `inputs/<input>/<name>` and outputs at
 * `outputs/<output>/<name>` in the working directory (the runner's `runtime.outdir`, gdflow's `/var/data`), with the
 * names gdflow's planner gives (domain/tasks/file-names.ts). So the command names the same files in the same places:
 * the very same paths when the runner's output directory is /var/data.
 */

const describe = (value: unknown): string => (Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value);

const isFile = (value: unknown): value is CwlFile => typeof value === 'object' && value !== null && (value as { class?: unknown }).class === 'File';

/** The files a CWL input holds: none for null, one for a File, each of a list. */
function filesOf(value: unknown, id: string): CwlFile[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    if (!isFile(item)) throw new Error(`input '${id}'${Array.isArray(value) ? `[${i}]` : ''} must be a File, not ${describe(item)}`);
    return item;
  });
}

/** A file's name: its basename, else the last part of its path or location. */
export const fileName = (file: CwlFile): string => file.basename ?? basename(file.path ?? file.location ?? '');

function checkCount(count: number, bounds: { minitems: number; maxitems: number }, what: string): void {
  if (count < bounds.minitems) throw new Error(`${what} has ${count} files; at least ${bounds.minitems} are needed`);
  if (count > bounds.maxitems) throw new Error(`${what} has ${count} files; at most ${bounds.maxitems} are allowed`);
}

export interface StagedInput {
  files: CwlFile[];
  /** Paths relative to the working directory: `inputs/<port>/<name>`. */
  paths: string[];
}

/** Each input port's files and where they are staged. */
export function stagedInputs(layout: EmbeddedLayout, inputs: CwlInputs): Record<string, StagedInput> {
  const staged: Record<string, StagedInput> = {};
  for (const [port, spec] of Object.entries(layout.inputs)) {
    const files = filesOf(inputs[spec.id], spec.id);
    checkCount(files.length, spec, `input '${spec.id}' of ${layout.tool}`);
    staged[port] = { files, paths: inputFileNames(files.map(fileName)).map((name) => `inputs/${port}/${name}`) };
  }
  return staged;
}

/** The names asked for an output's files: a string, a list of strings, or nothing. */
function requestedNames(value: unknown, id: string): string[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((name, i) => {
    if (typeof name !== 'string') throw new Error(`input '${id}'${Array.isArray(value) ? `[${i}]` : ''} must be a file name, not ${describe(name)}`);
    return name;
  });
}

/** Paths, relative to the working directory, of the files an output port is to hold: `outputs/<port>/<name>`. */
export function outputFiles(layout: EmbeddedLayout, port: string, inputs: CwlInputs): string[] {
  const spec = layout.outputs[port];
  if (!spec) throw new Error(`${layout.tool} has no output '${port}'`);
  const requested = requestedNames(inputs[spec.names], spec.names);
  if (requested.length > spec.maxitems) throw new Error(`input '${spec.names}' names ${requested.length} files; output '${port}' of ${layout.tool} has at most ${spec.maxitems}`);
  return outputFileNames(port, spec.formats, spec.minitems, requested).map((name) => `outputs/${port}/${name}`);
}

/**
 * InitialWorkDirRequirement's listing: every input file staged (read-only) at its place, and the directory of every
 * output port made, as gdflow makes them before the command runs.
 */
export function workDir(layout: EmbeddedLayout, inputs: CwlInputs): WorkDirEntry[] {
  const entries: WorkDirEntry[] = [];
  for (const { files, paths } of Object.values(stagedInputs(layout, inputs))) {
    files.forEach((file, i) => entries.push({ entry: file, entryname: paths[i]! }));
  }
  const outputDirectories: WorkDirEntry[] = Object.keys(layout.outputs).map((port) => ({ class: 'Directory', basename: port, listing: [] }));
  if (outputDirectories.length > 0) entries.push({ class: 'Directory', basename: 'outputs', listing: outputDirectories });
  return entries;
}
