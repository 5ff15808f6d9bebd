import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { glob } from 'glob';
import type { DataStore } from '../data/index.js';
import type { TesJobPart } from '../domain/tasks/job-spec.js';
import type { StoredItem } from '../domain/tasks/outputs.js';
import { TES_OUTPUTS_FILE, type TesOutputLog } from '../domain/tes/views.js';
import { hostPath } from './tes-staging.js';

/**
 * A TES task's outputs, stored after its command succeeded (docs/ga4gh.md, "Outputs"): each one a file, a DIRECTORY
 * (every file below it) or a pattern (every match, named by what follows its path_prefix), put in the data store or
 * below one of the operator's output roots. What was stored is written to the job's TES_OUTPUTS_FILE, which the
 * task's views read as its OutputFileLogs.
 *
 * Nothing the task made can lead the server elsewhere: a file is read only when no symbolic link is on its way from
 * the job directory, and a host file is written only when none is on its way from its output root (a temporary file
 * renamed over the target, so a link at the target itself is replaced, not followed).
 */

/** Most files one pattern may store. */
const MAX_MATCHES = 10_000;

/** Fail unless `file` is below `base` with no symbolic link on the way (`base` itself excluded). */
async function noLinkOnTheWay(base: string, file: string): Promise<void> {
  const rel = relative(base, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${file} is not inside ${base}`);
  let current = base;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    if ((await lstat(current)).isSymbolicLink()) throw new Error(`${current.slice(base.length + 1)} is a symbolic link`);
  }
}

/** The regular files below a host directory, relative to it (symbolic links are not followed). */
async function filesBelow(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await filesBelow(dir, rel)));
    else if (entry.isFile()) out.push(rel);
  }
  return out.sort();
}

type Output = TesJobPart['store'][number];
/** One file to store: where it is on the host, its container path, and its name below the output's target ('' for the target itself). */
type Piece = { host: string; container: string; name: string };

/** The files an output stands for. */
async function piecesOf(output: Output, part: TesJobPart, workDir: string): Promise<Piece[]> {
  if (output.prefix === undefined) {
    const host = hostPath(part, workDir, output.path);
    const st = await lstat(host);
    if (output.type === 'FILE') {
      if (!st.isFile()) throw new Error(st.isSymbolicLink() ? 'it is a symbolic link' : 'it is not a regular file');
      return [{ host, container: output.path, name: '' }];
    }
    if (!st.isDirectory()) throw new Error(st.isSymbolicLink() ? 'it is a symbolic link' : 'it is not a directory');
    return (await filesBelow(host)).map((name) => ({ host: join(host, name), container: `${output.path}/${name}`, name }));
  }
  // A pattern: matched below the directory before its first wildcard, which must be the task's own.
  const base = output.path.slice(0, output.path.slice(0, output.path.search(/[*?[]/)).lastIndexOf('/'));
  const hostBase = hostPath(part, workDir, base);
  try {
    await noLinkOnTheWay(workDir, hostBase);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const matches = (await glob(output.path.slice(base.length + 1), { cwd: hostBase, dot: true, follow: false, posix: true })).sort();
  const pieces: Piece[] = [];
  const nameOf = (container: string) => container.slice(output.prefix!.length).replace(/^\/+/, '');
  for (const match of matches) {
    const host = join(hostBase, match);
    const st = await lstat(host);
    const container = `${base}/${match}`;
    if (st.isFile()) pieces.push({ host, container, name: nameOf(container) });
    else if (st.isDirectory())
      for (const name of await filesBelow(host))
        pieces.push({ host: join(host, name), container: `${container}/${name}`, name: nameOf(`${container}/${name}`) });
    if (pieces.length > MAX_MATCHES) throw new Error(`it matches more than ${MAX_MATCHES} files`);
  }
  for (const piece of pieces)
    if (piece.name === '' || piece.name.split('/').includes('..')) throw new Error(`${piece.container}: path_prefix leaves it no name`);
  return pieces;
}

/** Copy `source` to `dest` below `root`: the directories on the way made, none of them (nor the root) a symbolic link. */
async function writeBelowRoot(root: string, dest: string, source: string): Promise<number> {
  if ((await realpath(root)) !== root) throw new Error(`the output root ${root} has become a symbolic link`);
  const rel = relative(root, dest);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${dest} is not below the output root ${root}`);
  let dir = root;
  for (const part of rel.split(sep).slice(0, -1)) {
    dir = join(dir, part);
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const st = await lstat(dir);
    if (!st.isDirectory()) throw new Error(`${dir} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}`);
  }
  const temp = join(dir, `.gdflow-${randomBytes(8).toString('hex')}.part`);
  try {
    await copyFile(source, temp, fsConstants.COPYFILE_EXCL);
    await rename(temp, dest);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return (await lstat(dest)).size;
}

/** Store one file of an output; its OutputFileLog, and its data store item if it went there. */
async function storePiece(output: Output, piece: Piece, workDir: string, dataStore: DataStore, job: { id: string; nodeId: string }) {
  const below = (dir: string) => (piece.name === '' ? dir : `${dir.replace(/\/$/, '')}/${piece.name}`);
  if (output.file) {
    await noLinkOnTheWay(workDir, piece.host);
    const dest = below(output.file.path);
    const size = await writeBelowRoot(output.file.root, dest, piece.host);
    return { log: { url: piece.name === '' ? output.url : `file://${dest}`, path: piece.container, size_bytes: String(size) } };
  }
  const target = { account: output.target!.account, path: below(output.target!.path) };
  const stamp = await dataStore.importFile(target, piece.host, { within: workDir });
  const item: StoredItem = { target, source: { kind: 'job', jobId: job.id, nodeId: job.nodeId, path: piece.host.slice(workDir.length + 1) }, ...stamp };
  return { log: { url: piece.name === '' ? output.url : `gdflow:${target.path}`, path: piece.container, size_bytes: String(stamp.size) }, item };
}

/** Store the outputs of a task whose command succeeded; what was stored, and why it stopped when it did. */
export async function storeTesOutputs(
  part: TesJobPart,
  workDir: string,
  dataStore: DataStore,
  job: { id: string; nodeId: string },
): Promise<{ stored: StoredItem[]; failure?: string }> {
  const stored: StoredItem[] = [];
  const logs: TesOutputLog[] = [];
  let failure: string | undefined;
  for (const output of part.store) {
    try {
      for (const piece of await piecesOf(output, part, workDir)) {
        const { log, item } = await storePiece(output, piece, workDir, dataStore, job);
        logs.push(log);
        if (item) stored.push(item);
      }
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the task did not write it' : error instanceof Error ? error.message : String(error);
      failure = `output ${output.path} could not be stored at ${output.url}: ${why}`;
      break;
    }
  }
  await writeFile(join(workDir, TES_OUTPUTS_FILE), JSON.stringify(logs));
  return failure === undefined ? { stored } : { stored, failure };
}
