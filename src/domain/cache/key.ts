import { createHash } from 'node:crypto';
import { stringifyExactJson } from '../../contract/exact-json.js';
import type { ShellToken } from './shell-words.js';

/**
 * A job's call-cache key (docs/tasks.md, "Call caching"): a hash of the work a run does, the same whichever language
 * the run was written in (a GeneDock tool, a CWL CommandLineTool, a WDL task, a TES task). work-key.ts makes it from a
 * run's description; the rule is written down in docs/tasks.md, "One cache for every language".
 */
export interface WorkParts {
  /** The image the document names ('' for none) and, where the executor resolved it, its digest. */
  image: string;
  imageDigest: string | null;
  /** Whether the command is given to the image's ENTRYPOINT (a CWL run in a container). */
  entrypoint: boolean;
  /** The environment beyond what every executor gives every job (HOME at the working directory, TMPDIR=/tmp). */
  env: Record<string, string>;
  /** Whether the command can reach the network: the one resource that changes what a command can produce. */
  network: boolean;
  /**
   * The command: its words, quotes removed, when every shell reads it the same (shell-words.ts); else its text and
   * the shell that runs it. Input directories are `<inN>`, outputs the command names `<outN>/name`, paths in
   * the working directory relative to it.
   */
  command: { tokens: ShellToken[] } | { shell: 'sh' | 'bash'; text: string };
  /** Each input, as the command names it (`<in1>/reads.fq`, or a path the document chose), → what it is. */
  inputs: Record<string, string>;
  /** What the outputs are collected from (`<out1>/trimmed.fq`, a path, or a language's own rule), sorted. */
  outputs: string[];
  /** Files the engine connects the command's streams to; null: stdin nothing, stdout and stderr the job's logs. */
  streams: { stdin: string | null; stdout: string | null; stderr: string | null };
}

/** What is stored with a job's key: the parts hashed, and what says where this job's own files are. */
export interface CacheParts extends WorkParts {
  /** The version of this recipe: a key made another way never matches (version 1 hashed the tool's name and parameters). */
  v: 2;
  /** Not hashed: each output's name in `outputs` → its path in this job's working directory. */
  places: Record<string, string>;
  /** Not hashed: each input directory's name in the key (`<in1>`) → where this job's command saw it. */
  inputPlaces: Record<string, string>;
  /** Not hashed: the files this job's output collection reads when they are there (CWL's cwl.output.json). */
  optionalReads: string[];
}

/** JSON with object keys sorted, so that equal documents hash the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return stringifyExactJson(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The parts that are hashed: everything but where this job's own files are. */
export function hashedParts(parts: CacheParts): WorkParts & { v: 2 } {
  const { places: _places, inputPlaces: _inputs, optionalReads: _reads, ...hashed } = parts;
  return hashed;
}

export function cacheKeyOf(parts: CacheParts): string {
  return sha256(canonicalJson(hashedParts(parts)));
}

/** Cache parts as read back from the store, when they are of this version (an older job's are not compared). */
export function readCacheParts(value: unknown): CacheParts | undefined {
  if (typeof value !== 'object' || value === null || (value as { v?: unknown }).v !== 2) return undefined;
  return value as CacheParts;
}

/**
 * The files of an earlier job (`source`, by its stored parts) that stand for this job's outputs, in the order of
 * `files` (this job's own paths): by their names in the key, which are equal when the keys are. Undefined when one
 * cannot be found (parts of another version, or an output the source does not have).
 */
export function sourceFilesFor(mine: CacheParts, files: readonly string[], source: unknown): string[] | undefined {
  const theirs = readCacheParts(source);
  if (!theirs) return undefined;
  const nameOf = new Map(Object.entries(mine.places).map(([name, path]) => [path, name]));
  const out: string[] = [];
  for (const file of files) {
    const name = nameOf.get(file);
    const path = name === undefined ? undefined : theirs.places[name];
    if (path === undefined) return undefined;
    out.push(path);
  }
  return out;
}
