import { createWriteStream } from 'node:fs';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DataStore } from '../data/index.js';
import { jobRelativePath, TES_DIR_RELATIVE } from '../domain/tes/paths.js';
import type { StageSource, TesJobPart } from '../domain/tasks/job-spec.js';
import { cloneOrCopy, cloneOrCopyTree } from './link-or-copy.js';
import type { RemoteFetch } from './remote-fetch.js';

/**
 * A TES task's files around its command (docs/ga4gh.md): its roots made in the job directory, its inputs placed
 * there before the command runs (copies: the command may write where its inputs are, and a stored item must not change
 * under the data store). Its outputs are tes-outputs.ts's.
 */

/** The host directory of each root, to bind at the root's container path. */
export function tesRoots(part: TesJobPart, workDir: string): Array<{ hostPath: string; sandboxPath: string }> {
  return part.roots.map((root) => ({ hostPath: join(workDir, jobRelativePath(root, part.roots)), sandboxPath: root }));
}

export const hostPath = (part: TesJobPart, workDir: string, containerPath: string): string => join(workDir, jobRelativePath(containerPath, part.roots));

/** Where a task's inputs come from: the data store, and the hosts http(s) inputs may be fetched from. */
export interface StagingSources {
  dataStore: DataStore;
  remote?: RemoteFetch | undefined;
}

async function download(url: string, to: string, remote: RemoteFetch | undefined, signal: AbortSignal): Promise<void> {
  if (!remote) throw new Error('this worker fetches no http(s) inputs');
  const response = await remote.get(url, signal);
  await pipeline(Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]), createWriteStream(to));
}

async function place(source: StageSource, type: 'FILE' | 'DIRECTORY', target: string, sources: StagingSources, signal: AbortSignal): Promise<void> {
  const { dataStore } = sources;
  switch (source.kind) {
    case 'content':
      await writeFile(target, source.text);
      return;
    case 'url':
      await download(source.url, target, sources.remote, signal);
      return;
    case 'file': {
      // Checked against the operator's roots when the task was made: a path that resolves elsewhere now is refused.
      if ((await realpath(source.path)) !== source.path) throw new Error(`${source.path} has become a symbolic link`);
      if (type === 'DIRECTORY') await cloneOrCopyTree(source.path, target, { writable: false });
      else await cloneOrCopy(source.path, target);
      return;
    }
    case 'data': {
      const ref = { account: source.account, path: source.path };
      if (type === 'FILE') {
        await cloneOrCopy(await dataStore.resolve(ref), target);
        return;
      }
      await mkdir(target, { recursive: true });
      const prefix = `${source.account}:${source.path.replace(/\/$/, '')}/`;
      for (const item of await dataStore.list(source.account, `${source.path.replace(/\/$/, '')}/`)) {
        const relative = item.name.slice(prefix.length);
        await mkdir(dirname(join(target, relative)), { recursive: true });
        await cloneOrCopy(await dataStore.resolve({ account: source.account, path: `${source.path.replace(/\/$/, '')}/${relative}` }), join(target, relative));
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
export async function stageTes(part: TesJobPart, workDir: string, sources: StagingSources, signal: AbortSignal): Promise<string | undefined> {
  await mkdir(join(workDir, TES_DIR_RELATIVE, 'log'), { recursive: true });
  for (const root of tesRoots(part, workDir)) await mkdir(root.hostPath, { recursive: true });
  for (const dir of part.dirs) await mkdir(hostPath(part, workDir, dir), { recursive: true });
  for (const input of part.stage) {
    const target = hostPath(part, workDir, input.path);
    try {
      await mkdir(dirname(target), { recursive: true });
      await place(input.source, input.type, target, sources, signal);
    } catch (error) {
      return `input ${describe(input.source)} could not be placed at ${input.path}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return undefined;
}
