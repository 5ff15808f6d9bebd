import { createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, realpath, writeFile } from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DataStore } from '../data/index.js';
import { jobRelativePath, TES_DIR_RELATIVE } from '../domain/tes/paths.js';
import type { StageSource, TesJobPart } from '../domain/tasks/job-spec.js';
import type { StoredItem } from '../domain/tasks/outputs.js';

/**
 * A TES task's files around its command (docs/ga4gh.md): its roots made in the job directory, its inputs placed
 * there before the command runs (copies: the command may write where its inputs are, and a stored item must not change
 * under the data store), its outputs stored in the data store after the command succeeded.
 */

/** The host directory of each root, to bind at the root's container path. */
export function tesRoots(part: TesJobPart, workDir: string): Array<{ hostPath: string; sandboxPath: string }> {
  return part.roots.map((root) => ({ hostPath: join(workDir, jobRelativePath(root, part.roots)), sandboxPath: root }));
}

const hostPath = (part: TesJobPart, workDir: string, containerPath: string): string => join(workDir, jobRelativePath(containerPath, part.roots));

/** Copy a file, by reflink where the file system can. */
const copy = (from: string, to: string) => copyFile(from, to, fsConstants.COPYFILE_FICLONE);

/** Copy a host directory's regular files and directories (symbolic links are skipped: they could lead anywhere). */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyTree(join(from, entry.name), join(to, entry.name));
    else if (entry.isFile()) await copy(join(from, entry.name), join(to, entry.name));
  }
}

async function download(url: string, to: string, signal: AbortSignal): Promise<void> {
  const response = await fetch(url, { signal, redirect: 'follow' });
  if (!response.ok || !response.body) throw new Error(`GET ${url} answered ${response.status}`);
  await pipeline(Readable.fromWeb(response.body), createWriteStream(to));
}

async function place(source: StageSource, type: 'FILE' | 'DIRECTORY', target: string, dataStore: DataStore, signal: AbortSignal): Promise<void> {
  switch (source.kind) {
    case 'content':
      await writeFile(target, source.text);
      return;
    case 'url':
      await download(source.url, target, signal);
      return;
    case 'file': {
      // Checked against the operator's roots when the task was made: a path that resolves elsewhere now is refused.
      if ((await realpath(source.path)) !== source.path) throw new Error(`${source.path} has become a symbolic link`);
      if (type === 'DIRECTORY') await copyTree(source.path, target);
      else await copy(source.path, target);
      return;
    }
    case 'data': {
      const ref = { account: source.account, path: source.path };
      if (type === 'FILE') {
        await copy(await dataStore.resolve(ref), target);
        return;
      }
      await mkdir(target, { recursive: true });
      const prefix = `${source.account}:${source.path.replace(/\/$/, '')}/`;
      for (const item of await dataStore.list(source.account, `${source.path.replace(/\/$/, '')}/`)) {
        const relative = item.name.slice(prefix.length);
        await mkdir(dirname(join(target, relative)), { recursive: true });
        await copy(await dataStore.resolve({ account: source.account, path: `${source.path.replace(/\/$/, '')}/${relative}` }), join(target, relative));
      }
      return;
    }
  }
}

const describe = (source: StageSource): string =>
  source.kind === 'data'
    ? `gdflow:${source.account === '' ? '' : `//${source.account}`}${source.path}`
    : source.kind === 'file'
      ? `file://${source.path}`
      : source.kind === 'url'
        ? source.url
        : 'content';

/** Make the roots and place the inputs; the reason the task cannot run, or undefined. */
export async function stageTes(part: TesJobPart, workDir: string, dataStore: DataStore, signal: AbortSignal): Promise<string | undefined> {
  await mkdir(join(workDir, TES_DIR_RELATIVE, 'log'), { recursive: true });
  for (const root of tesRoots(part, workDir)) await mkdir(root.hostPath, { recursive: true });
  for (const dir of part.dirs) await mkdir(hostPath(part, workDir, dir), { recursive: true });
  for (const input of part.stage) {
    const target = hostPath(part, workDir, input.path);
    try {
      await mkdir(dirname(target), { recursive: true });
      await place(input.source, input.type, target, dataStore, signal);
    } catch (error) {
      return `input ${describe(input.source)} could not be placed at ${input.path}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return undefined;
}

/** The regular files below a host directory, relative to it (symbolic links are not followed). */
async function filesBelow(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await filesBelow(dir, relative)));
    else if (entry.isFile()) out.push(relative);
  }
  return out;
}

/** Store the outputs of a task whose command succeeded; what was stored, and why it stopped when it did. */
export async function storeTesOutputs(
  part: TesJobPart,
  workDir: string,
  dataStore: DataStore,
  job: { id: string; nodeId: string },
): Promise<{ stored: StoredItem[]; failure?: string }> {
  const stored: StoredItem[] = [];
  for (const output of part.store) {
    const source = hostPath(part, workDir, output.path);
    try {
      const st = await lstat(source);
      const files = output.type === 'DIRECTORY' && st.isDirectory() ? await filesBelow(source) : [''];
      if (output.type === 'DIRECTORY' && !st.isDirectory()) throw new Error('it is not a directory');
      for (const relative of files) {
        const file = relative === '' ? source : join(source, relative);
        const target = relative === '' ? output.target : { account: output.target.account, path: `${output.target.path.replace(/\/$/, '')}/${relative}` };
        const stamp = await dataStore.importFile(target, file, { within: workDir });
        const path = file.slice(workDir.length + 1);
        stored.push({ target, source: { kind: 'job', jobId: job.id, nodeId: job.nodeId, path }, ...stamp });
      }
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the task did not write it' : error instanceof Error ? error.message : String(error);
      return { stored, failure: `output ${output.path} could not be stored at ${output.url}: ${why}` };
    }
  }
  return { stored };
}
