import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson, cacheKeyOf, sha256, sourceFilesFor, type CacheParts } from '../../domain/cache/key.js';
import { workKeyParts } from '../../domain/cache/work-key.js';
import type { ResolvedRun } from '../../domain/tasks/job-spec.js';
import type { FileStamp, Job } from '../../store/store.js';
import type { CacheContext, CallCache } from '../call-cache.js';
import { hashFile, stampOf } from '../file-hash.js';
import type { Layout } from '../layout.js';
import { SANDBOX_DATA_DIR } from '../executors/executor.js';
import { linkOrCopyTree } from '../link-or-copy.js';

/**
 * Call caching of deferred jobs' runs (docs/tasks.md, "One cache for every language"): the key is made of the work the
 * run does, as a tool job's is (domain/cache/work-key.ts): the command its language wrote (the run's `work`), the
 * environment, the image and its digest, each staged input by its content (an input an earlier job of the task made,
 * by that job's key and the file's place in it), and what its outputs are collected from. A hit gives the job the
 * earlier run's working directory (hard links, else copies), the earlier job of any language, and its resolver
 * collects the outputs from it as after a run, so that every location is the new job's own.
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
  const work = run.work;
  const internal = new Set(work?.internal ?? []);
  const chosen = new Set(work?.fixed ?? []);
  const placed: Record<string, string> = {};
  const fixed: Record<string, string> = {};
  for (const item of run.staging) {
    if (internal.has(item.path)) continue;
    // A read-only File is what its content is, however it was given (a stored item, a literal): as a tool job's input.
    const what = item.location !== undefined ? await locationHash(item.location, c) : sha256(portable(item.contents ?? ''));
    const path = portable(item.path);
    (chosen.has(item.path) ? fixed : placed)[path] = `${item.class === 'Directory' ? 'Directory:' : ''}${what}${item.writable ? ' (writable)' : ''}`;
  }
  // A disk at a mount point is an empty directory the command may write in and its outputs may be read from.
  for (const root of run.roots ?? []) placed[root] = 'Directory: an empty disk (writable)';
  // A run of an older spec says nothing of its outputs but its resolver's payload: a rule no other language's run has.
  const outputs = work?.outputs ?? [`collect:${sha256(canonicalJson(portable(withoutLocations(run.collect))))}`];
  const streams = { stdin: work?.stdin, stdout: work?.stdout, stderr: work?.stderr };
  const parts = workKeyParts({
    script: portable(work?.script ?? run.command),
    shell: work?.shell ?? 'sh',
    workDir: run.workDirPath ?? SANDBOX_DATA_DIR,
    placed,
    fixed,
    outputs,
    outputDirsMade: false,
    optionalReads: work?.optionalReads ?? [],
    ...Object.fromEntries(Object.entries(streams).flatMap(([name, path]) => (path === undefined ? [] : [[name, portable(path)]]))),
    env: portable(run.env),
    image: work?.image ?? run.image,
    imageDigest: c.imageDigest,
    entrypoint: work?.entrypoint ?? run.imageEntrypoint === true,
    network: run.network,
  });
  return { parts, key: cacheKeyOf(parts) };
}

/**
 * A succeeded run with this key whose files are intact: a deferred job's (all of its working directory) or a tool
 * job's of any language (its outputs), which has every output this run's key names.
 */
export async function findStepHit(key: string, parts: CacheParts, c: StepCacheContext): Promise<{ hit?: Job; note?: string }> {
  const names = Object.values(parts.places);
  const found = await c.calls.findJob(key, c.jobId, c.context, (job) =>
    job.outputStamps && sourceFilesFor(parts, names, job.cacheParts) !== undefined
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

/**
 * The earlier run's working directory, and its logs, linked into this job's; its outputs also where this run's key
 * places them (an earlier job of another language may have written them elsewhere: a tool's `outputs/<port>/`), the
 * files this run's collection reads when there (cwl.output.json), and the stream files this run's wrapping would
 * have written (WDL's), from the earlier job's logs. Returns the new files' stamps.
 */
export async function reuseWorkDir(source: Job, c: StepCacheContext, nodeId: string, parts: CacheParts, run: ResolvedRun): Promise<Record<string, FileStamp>> {
  const from = c.layout.workDir(source.taskId, source.nodeId);
  const to = c.layout.workDir(c.taskId, nodeId);
  const stamps: Record<string, FileStamp> = {};
  const place = async (sourceFile: string, file: string) => {
    await mkdir(dirname(join(to, file)), { recursive: true });
    await linkOrCopyTree(sourceFile, join(to, file));
    stamps[file] = await stampOf(join(to, file));
  };
  for (const [file, stamp] of Object.entries(source.outputStamps ?? {})) {
    if (stamp.size < 0) {
      await mkdir(join(to, file), { recursive: true });
      stamps[file] = stamp;
      continue;
    }
    await place(join(from, file), file);
  }
  const paths = Object.values(parts.places);
  const sourcePaths = sourceFilesFor(parts, paths, source.cacheParts) ?? [];
  for (const [i, file] of paths.entries()) if (!(file in stamps) && sourcePaths[i] !== undefined) await place(join(from, sourcePaths[i]), file);
  for (const file of parts.optionalReads) if (!(file in stamps) && existsSync(join(from, file))) await place(join(from, file), file);
  for (const log of ['stdoutLog', 'stderrLog'] as const) {
    await linkOrCopyTree(c.layout[log](source.taskId, source.nodeId), c.layout[log](c.taskId, nodeId)).catch(() => undefined);
  }
  const streams = run.work?.streamFiles;
  if (streams?.stdout !== undefined && !(streams.stdout in stamps)) await place(c.layout.stdoutLog(source.taskId, source.nodeId), streams.stdout);
  if (streams?.stderr !== undefined && !(streams.stderr in stamps)) await place(c.layout.stderrLog(source.taskId, source.nodeId), streams.stderr);
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
