import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson, cacheKeyOf, sha256, type CacheParts } from '../../domain/cache/key.js';
import { runOf, type ResolvedRun } from '../../domain/tasks/job-spec.js';
import type { FileStamp, Job } from '../../store/store.js';
import type { CacheContext, CallCache } from '../call-cache.js';
import { hashFile, stampOf } from '../file-hash.js';
import type { Layout } from '../layout.js';
import { linkTree } from './staging.js';

/**
 * Call caching of deferred jobs' runs (docs/tasks.md, "Call caching"): the key is made of what runs, not of where its
 * files are: the command, the environment, the image and its digest, each staged input by its sandbox path and its
 * content (an input an earlier job of the task made, by that job's key and the file's place in it), and the resolver's
 * payload for collecting the outputs without host locations (for CWL: the document, the inputs, the runtime). A hit
 * gives the job the earlier run's working directory (hard links, else copies) and its resolver collects the outputs
 * from it as after a run, so that every location is the new job's own.
 */

export interface StepCacheContext {
  calls: CallCache;
  context: CacheContext;
  layout: Layout;
  taskId: string;
  jobId: string;
  /** The job's name (its tool's), which explain compares with. */
  name: string;
  /** The digest of the image the run would run in now, or null. */
  imageDigest: string | null;
  /** The cache key of the job of this task whose working directory is `nodeId`'s, if it has one. */
  keyOfNode(nodeId: string): string | null;
  /**
   * Where the run's inputs are staged on the host when there is no sandbox (a path of this job's own): written as
   * `<staging>` in the key, so that the same run of another task or job has the same key.
   */
  stagingRoot?: string;
}

export async function stepCacheKey(run: ResolvedRun, c: StepCacheContext): Promise<{ parts: CacheParts; key: string }> {
  const root = c.stagingRoot;
  const portable = <T>(value: T): T => (root === undefined ? value : (replaced(value, root, '<staging>') as T));
  const inputs: Record<string, string> = {};
  for (const item of run.staging) {
    const what = item.location !== undefined ? await locationHash(item.location, c) : sha256(portable(item.contents ?? ''));
    inputs[portable(item.path)] = `${item.class}${item.writable ? ' (writable)' : ''}:${item.location !== undefined ? what : `literal ${what}`}`;
  }
  const parts: CacheParts = {
    v: 1,
    tool: { name: c.name, version: 0, digest: sha256(canonicalJson(portable(withoutLocations(run.collect)))) },
    image: run.image,
    imageDigest: c.imageDigest,
    inputs,
    parameters: { env: portable(run.env), network: run.network },
    command: portable(run.command),
    stdin: null,
    stdout: null,
  };
  return { parts, key: cacheKeyOf(parts) };
}

/** A succeeded run with this key whose working directory is intact. */
export async function findStepHit(key: string, c: StepCacheContext): Promise<{ hit?: Job; note?: string }> {
  const found = await c.calls.findJob(key, c.jobId, c.context, (job, spec) =>
    runOf(spec) !== undefined && job.outputStamps
      ? Object.entries(job.outputStamps)
          .filter(([, s]) => s.size >= 0)
          .map(([f]) => f)
      : undefined,
  );
  return { ...(found.hit ? { hit: found.hit.job } : {}), ...(found.note !== undefined ? { note: found.note } : {}) };
}

/**
 * What a succeeded run leaves in its working directory, for a later hit to check and take: every file with its stamp,
 * every directory (an empty one too) with size -1.
 */
export async function stampWorkDir(workDir: string): Promise<Record<string, FileStamp>> {
  const stamps: Record<string, FileStamp> = {};
  const visit = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        stamps[rel] = { size: -1, mtimeMs: 0 };
        await visit(join(dir, entry.name), rel);
      } else if (entry.isFile()) stamps[rel] = await stampOf(join(dir, entry.name));
    }
  };
  await visit(workDir, '');
  return stamps;
}

/** The earlier run's working directory, and its logs, linked into this job's. Returns the new files' stamps. */
export async function reuseWorkDir(source: Job, c: StepCacheContext, nodeId: string): Promise<Record<string, FileStamp>> {
  const from = c.layout.workDir(source.taskId, source.nodeId);
  const to = c.layout.workDir(c.taskId, nodeId);
  const stamps: Record<string, FileStamp> = {};
  for (const [file, stamp] of Object.entries(source.outputStamps ?? {})) {
    if (stamp.size < 0) {
      await mkdir(join(to, file), { recursive: true });
      stamps[file] = stamp;
      continue;
    }
    await linkTree(join(from, file), join(to, file));
    stamps[file] = await stampOf(join(to, file));
  }
  for (const log of ['stdoutLog', 'stderrLog'] as const) {
    await linkTree(c.layout[log](source.taskId, source.nodeId), c.layout[log](c.taskId, nodeId)).catch(() => undefined);
  }
  return stamps;
}

/** What an input's content is: an upstream job's output by its key and place, a stored item by its hash, else its own hash. */
async function locationHash(location: string, c: StepCacheContext): Promise<string> {
  const host = fileURLToPath(location);
  const inTask = relative(c.layout.taskDir(c.taskId), host).split(sep);
  if (inTask.length >= 3 && inTask[0] !== '..' && inTask[1] === 'work') {
    const key = c.keyOfNode(inTask[0]!);
    if (key !== null) return `${key}:${inTask.slice(2).join('/')}`;
  }
  const store = relative(join(c.layout.dataStoreRoot, c.context.account), host);
  if (!store.startsWith('..') && (await lstat(host)).isFile()) return c.calls.dataHash(c.context.account, `/${store.split(sep).join('/')}`);
  return contentHash(host);
}

/** A file's sha256, or a directory's: of its entries' names and contents, in order. */
async function contentHash(path: string): Promise<string> {
  const info = await lstat(path);
  if (!info.isDirectory()) return info.isFile() ? (await hashFile(path)).sha256 : '';
  const entries = (await readdir(path)).sort();
  const hash = createHash('sha256');
  for (const name of entries) hash.update(`${name}\0${await contentHash(join(path, name))}\0`);
  return hash.digest('hex');
}

/** A JSON value with every occurrence of `from` in its strings written `to`. */
function replaced(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((item) => replaced(item, from, to));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaced(item, from, to)]));
}

/** A value without its `location` members (host paths differ between tasks; contents are keyed by the inputs). */
function withoutLocations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLocations);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'location')
      .map(([key, item]) => [key, withoutLocations(item)]),
  );
}
