import { canonicalJson, type CacheParts } from './key.js';
import { literalCommands, programPositions, type ShellToken } from './shell-words.js';

/**
 * A run as the engine is about to carry it out, whatever language it was written in: what its call-cache key is made
 * of (docs/tasks.md, "One cache for every language"). Each language says what its run is (domain/tasks/cache-parts.ts
 * for a tool or TES job, engine/deferred/step-cache.ts for a CWL or WDL run); workKeyParts makes the key's parts.
 */
export interface RunDescription {
  /** What the shell runs: a rendered template, a CWL argv joined, a WDL command section; without the engine's wrapping. */
  script: string;
  /** `sh`: /bin/sh -c; `bash`: bash where the image has it (WDL). */
  shell: 'sh' | 'bash';
  /** Where the command sees its working directory (`/var/data`). */
  workDir: string;
  /** Files the engine put where it chose (a tool's `/var/data/inputs/...`, CWL's and WDL's staging), by path → what they are. */
  placed: Readonly<Record<string, string>>;
  /** Files put at paths the document chose (CWL InitialWorkDir entries, TES inputs), by path → what they are. */
  fixed: Readonly<Record<string, string>>;
  /** What the outputs are collected from: paths relative to the working directory, or a rule that is not a path (`cwl:...`). */
  outputs: readonly string[];
  /** Whether the engine makes an output's directory before the run (a tool's `outputs/<port>/`); else only the working directory is there. */
  outputDirsMade: boolean;
  /** Files that output collection reads when the command wrote them (CWL's cwl.output.json): not in the key, taken on a hit. */
  optionalReads?: readonly string[];
  /** Paths (as the command sees them) the engine connects the streams to; undefined: stdin nothing, stdout and stderr the logs. */
  stdin?: string;
  stdout?: string;
  stderr?: string;
  env: Readonly<Record<string, string>>;
  image: string;
  imageDigest: string | null;
  entrypoint: boolean;
  network: boolean;
}

/** What every executor gives every job (engine/executors): a variable a language sets to one of these sets nothing. */
const standardEnv = (workDir: string): Record<string, string> => ({ HOME: workDir, TMPDIR: '/tmp' });

/**
 * The key's parts of a run: equal for equal work in any language, different when anything that can change the result
 * differs. Where the engine put a file is not part of the work (a path is keyed by what it names: an input by its
 * content, an output by its name and order in the command, a file in the working directory by its place in it); what
 * the document chose is.
 */
export function workKeyParts(run: RunDescription): CacheParts {
  const { rewrites, dirs, places: inputPlaces } = inputDirs(run.placed, run.script);
  const withInputs = (text: string): string => {
    let out = text;
    for (const [from, to] of rewrites) out = out.split(from).join(to);
    return out;
  };
  const inputs: Record<string, string> = {};
  for (const [path, what] of Object.entries(run.placed)) inputs[withInputs(path)] = what;
  for (const [path, what] of Object.entries(run.fixed)) inputs[relativeTo(run.workDir, path) ?? path] = what;

  const outputs = [...run.outputs];
  const places: Record<string, string> = {};
  const named = new Map<string, string>();
  const tokens = literalCommands(run.script);
  const word = (text: string, program: boolean): string => {
    const input = dirs.get(text);
    if (input !== undefined) return input;
    const value = withInputs(text);
    if (program || value !== text) return value;
    const path = relativeTo(run.workDir, value) ?? value;
    if (!outputs.includes(path) || (!run.outputDirsMade && path.includes('/'))) return path;
    let name = named.get(path);
    if (name === undefined) {
      name = `<out${named.size + 1}>/${path.slice(path.lastIndexOf('/') + 1)}`;
      named.set(path, name);
      places[name] = path;
    }
    return name;
  };
  let command: CacheParts['command'];
  let streamWord = (path: string | undefined): string | null => (path === undefined ? null : withInputs(relativeTo(run.workDir, path) ?? path));
  if (tokens) {
    const programs = programPositions(tokens);
    const read: ShellToken[] = tokens.map((token, i) => ('w' in token ? { w: word(token.w, programs.has(i)) } : token));
    command = { tokens: read };
    streamWord = (path) => (path === undefined ? null : word(path, false));
  } else {
    command = { shell: run.shell, text: withInputs(run.script).split(`${run.workDir}/`).join('<work>/') };
  }
  const streams = { stdin: streamWord(run.stdin), stdout: streamWord(run.stdout), stderr: streamWord(run.stderr) };
  for (const out of outputs) if (isPath(out) && !named.has(out)) places[out] = out;
  const standard = standardEnv(run.workDir);
  const env = Object.fromEntries(Object.entries(run.env).filter(([name, value]) => standard[name] !== value));
  return {
    v: 2,
    image: run.image,
    imageDigest: run.imageDigest,
    entrypoint: run.entrypoint,
    env,
    network: run.network,
    command,
    inputs,
    outputs: outputs.map((out) => named.get(out) ?? out).sort(),
    streams,
    places,
    inputPlaces,
    optionalReads: [...(run.optionalReads ?? [])],
  };
}

/** How the key names the places of inputs (see inputDirs). */
interface InputNames {
  /** Text to replace in paths and the command, longest first: `<dir>/` (or `<dir>/<entry>`) by `<inN>/` (`<inN>/<entry>`). */
  rewrites: Array<readonly [string, string]>;
  /** A directory named whole, by its name: a word that is the directory itself. */
  dirs: Map<string, string>;
  /** Where each `<inN>` was in this run (a hit finds its source's files there). */
  places: Record<string, string>;
}

/** Files that belong together by name: `ref.fa` with `ref.fa.bwt`, `reads.bam` with `reads.bai`. */
const stemOf = (entry: string): string => (entry.indexOf('.') > 0 ? entry.slice(0, entry.indexOf('.')) : entry);

/**
 * The places the engine put inputs in (the parents of placed paths that are not under another placed path), each with
 * its name in the key: `<inN>`, numbered in the order the script first names them (those it does not name after, in
 * the order of what they hold). The key lists everything placed in each under its name (`<in1>/reads.fq`), so that two
 * runs whose inputs sit in directories that hold the same see the same files there, siblings (a .bai next to its
 * .bam, an index beside its reference) included, wherever the engine put them.
 *
 * A directory whose files the command names one by one and never as a directory is keyed by groups of files that
 * belong together by name (stemOf): WDL stages the files of one data directory together (as Cromwell and miniwdl do),
 * where a GeneDock tool and CWL give each input a directory of its own, and two reads that only happen to share a
 * directory are not each other's siblings. That assumes a command does not list an input's directory unasked, as the
 * key already assumes of the working directory (docs/tasks.md).
 */
function inputDirs(placed: Readonly<Record<string, string>>, script: string): InputNames {
  const paths = Object.keys(placed).sort();
  const tops = paths.filter((path) => !paths.some((other) => other !== path && path.startsWith(`${other}/`)));
  const held = new Map<string, Record<string, string>>();
  for (const top of tops) {
    const dir = top.slice(0, top.lastIndexOf('/'));
    if (dir === '') continue;
    const files = held.get(dir) ?? {};
    for (const path of paths) if (path === top || path.startsWith(`${top}/`)) files[path.slice(dir.length + 1)] = placed[path]!;
    held.set(dir, files);
  }
  const mention = (text: string): number => {
    const at = script.indexOf(`${text}/`);
    return at >= 0 ? at : script.indexOf(text) >= 0 ? script.indexOf(text) : Number.MAX_SAFE_INTEGER;
  };
  /** A group of placed files keyed under one name: a whole directory, or the entries of one stem in it. */
  const groups: Array<{ dir: string; entries: string[] | undefined; at: number; content: string }> = [];
  for (const [dir, files] of held) {
    const entries = [...new Set(Object.keys(files).map((name) => name.split('/')[0]!))];
    const stems = new Map<string, string[]>();
    for (const entry of entries) stems.set(stemOf(entry), [...(stems.get(stemOf(entry)) ?? []), entry]);
    const withoutEntries = entries.reduce((text, entry) => text.split(`${dir}/${entry}`).join(''), script);
    if (stems.size < 2 || withoutEntries.includes(dir)) {
      groups.push({ dir, entries: undefined, at: mention(dir), content: canonicalJson(files) });
      continue;
    }
    for (const members of stems.values()) {
      const content = Object.fromEntries(Object.entries(files).filter(([name]) => members.includes(name.split('/')[0]!)));
      const at = Math.min(...members.map((entry) => mention(`${dir}/${entry}`)));
      groups.push({ dir, entries: members, at, content: canonicalJson(content) });
    }
  }
  groups.sort((a, b) => a.at - b.at || (a.content < b.content ? -1 : a.content > b.content ? 1 : 0));
  const names: InputNames = { rewrites: [], dirs: new Map(), places: {} };
  groups.forEach(({ dir, entries }, i) => {
    const name = `<in${i + 1}>`;
    names.places[name] = dir;
    if (entries === undefined) {
      names.rewrites.push([`${dir}/`, `${name}/`]);
      names.dirs.set(dir, name);
    } else {
      for (const entry of entries) names.rewrites.push([`${dir}/${entry}`, `${name}/${entry}`]);
    }
  });
  names.rewrites.sort(([a], [b]) => b.length - a.length);
  return names;
}

/** A path relative to the working directory when it is in it (`.` for the directory itself), else undefined. */
function relativeTo(workDir: string, path: string): string | undefined {
  if (path === workDir || path === `${workDir}/`) return '.';
  return path.startsWith(`${workDir}/`) ? path.slice(workDir.length + 1) : undefined;
}

/** An output that is a path (not a language's own rule, not a glob). */
const isPath = (out: string): boolean => !/^[a-z]+:/.test(out) && !/[*?[\]{}]/.test(out);
