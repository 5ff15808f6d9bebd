import { mkdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sha256, sourceFilesFor, type CacheParts } from '../domain/cache/key.js';
import { cachePartsOf } from '../domain/tasks/cache-parts.js';
import { parseJobSpec, type JobSpec, type ToolJobSpec } from '../domain/tasks/job-spec.js';
import type { DataStore } from '../data/index.js';
import type { CacheFiles, SharedHit } from '../domain/tasks/cached-rerun.js';
import type { CallCacheStore, FileStamp, Job, TaskStore } from '../store/store.js';
import { hashFile, stampMatches, stampOf, stillMatches } from './file-hash.js';
import type { Layout } from './layout.js';
import { linkJobDir, linkTaskDir, unlinkJobDir } from './linked-job-dirs.js';
import { linkOrCopy } from './link-or-copy.js';

/**
 * Call caching (docs/tasks.md, "Call caching"): before a tool job runs, its key is made of the work it does
 * (domain/cache/work-key.ts: its command, image and digest, inputs by content, outputs, network); a succeeded job of the same account with the same key whose
 * outputs are still there unchanged gives this job its outputs (hard links, else copies: never moved). A stored
 * input is known by the hash of its content; an input made by an upstream job by that job's key and the file's
 * path (the key says how the file was made, and an output is never written after its job ended), or, when the
 * upstream job has no key (a tool never cached), by its content. The job reused may be of any language (a CWL or WDL
 * run with the same key): its files are found by the outputs' names in the key (sourceFilesFor).
 */

/** What a job brings to the cache from its task. */
export interface CacheContext {
  account: string;
  /** Reuse from any earlier job of the account (the server's, the task's and the tool's choice). */
  enabled: boolean;
  /** Reuse from this earlier task's jobs first, even with caching off (a resume, docs/tasks.md "Resume"). */
  referenceTask: string | null;
  /** The cache key of an upstream job of the same task, by job id (null: it has none). */
  upstreamKey(jobId: string): string | null;
}

export interface CacheHit {
  source: Job;
  /** The source's files that stand for this job's outputs, in the order of its outputFiles. */
  sourceFiles: readonly string[];
}

/** How many earlier jobs with the same key are looked at (newest first) for one whose outputs are intact. */
const CANDIDATES = 8;

export class CallCache implements CacheFiles {
  /** The directory of the task whose hits reuseAtActivation placed last. */
  private taskDirMade = '';

  constructor(
    private readonly store: CallCacheStore & Pick<TaskStore, 'listJobs'>,
    private readonly dataStore: DataStore,
    private readonly layout: Layout,
  ) {}

  /** The parts of a job's key: its inputs hashed (stored items once, kept in the store; upstream outputs as recorded). */
  async partsOf(spec: ToolJobSpec, taskId: string, context: CacheContext, imageDigest: string | null): Promise<CacheParts> {
    const inputs: Record<string, string> = {};
    const fixed: Record<string, string> = {};
    for (const mount of spec.mounts) {
      const source = mount.source;
      if (source.kind === 'data') inputs[mount.sandboxPath] = await this.dataHash(source.account, source.path);
      else {
        const upstream = context.upstreamKey(source.jobId);
        inputs[mount.sandboxPath] =
          upstream !== null ? `${upstream}:${source.path}` : (await hashFile(join(this.layout.workDir(taskId, source.nodeId), source.path))).sha256;
      }
    }
    // A TES task's inputs (docs/ga4gh.md): placed by the job itself, known by their content.
    for (const input of spec.tes?.stage ?? []) {
      const source = input.source;
      if (source.kind === 'data' && input.type === 'FILE') fixed[input.path] = await this.dataHash(source.account, source.path);
      else if (source.kind === 'file' && input.type === 'FILE') fixed[input.path] = (await hashFile(source.path)).sha256;
      else if (source.kind === 'content') fixed[input.path] = sha256(source.text);
      // A directory or a URL cannot be known by a hash taken up front: such a job is never reused (compile.ts).
      else throw new Error(`input ${input.path} cannot be hashed up front`);
    }
    return cachePartsOf(spec, inputs, imageDigest, fixed);
  }

  /** A stored item's content hash: computed once, kept while its size and modification time stay the same. */
  async dataHash(account: string, path: string): Promise<string> {
    const file = await this.dataStore.resolve({ account, path });
    const known = await this.store.getContentHash(account, path);
    if (known && (await stillMatches(file, known))) return known.sha256;
    const hash = await hashFile(file);
    await this.store.putContentHash(account, path, hash);
    return hash.sha256;
  }

  /**
   * A job to reuse: the reference task's job with this key first, then the newest of the account's. Returns why
   * there was none when an earlier job had the key but cannot be used (its outputs are gone or changed).
   */
  async find(key: string, parts: CacheParts, jobId: string, outputs: readonly string[], context: CacheContext): Promise<{ hit?: CacheHit; note?: string }> {
    const found = await this.findJob(key, jobId, context, (job) => sourceFilesFor(parts, outputs, job.cacheParts));
    if (!found.hit) return found.note === undefined ? {} : { note: found.note };
    return { hit: { source: found.hit.job, sourceFiles: sourceFilesFor(parts, outputs, found.hit.job.cacheParts)! } };
  }

  /**
   * A succeeded job with this key whose files are intact: `files` says which files of its working directory a job of
   * the right kind must still have as they were (undefined: it is not of the kind asked for). The reference task's
   * jobs first, then the newest of the account's.
   */
  async findJob(
    key: string,
    jobId: string,
    context: CacheContext,
    files: (job: Job, spec: JobSpec) => readonly string[] | undefined,
  ): Promise<{ hit?: { job: Job; spec: JobSpec }; note?: string }> {
    const candidates: Job[] = [];
    if (context.referenceTask !== null) {
      candidates.push(...(await this.store.listJobs(context.referenceTask)).filter((j) => j.cacheKey === key && j.status === 'succeeded'));
    }
    // Of the account's, a job that ran before one that reused it (newest first within each): a hit then names the job
    // that did the work, whichever language it was written in, and does not lean on a chain of links.
    if (context.enabled) candidates.push(...ranFirst(await this.store.findCachedJobs(context.account, key, CANDIDATES)));
    let note: string | undefined;
    for (const job of candidates) {
      if (job.id === jobId) continue;
      let spec;
      try {
        spec = parseJobSpec(job.spec);
      } catch {
        continue;
      }
      const wanted = files(job, spec);
      if (wanted === undefined) continue;
      if (await this.intact(job, wanted)) return { hit: { job, spec } };
      note ??= `job ${job.id} had the same key, but its outputs are gone or changed`;
    }
    return note === undefined ? {} : { note };
  }

  /**
   * Whether a job's outputs are as its stamps say. With `statSync`: an activation checks a whole task's candidates at
   * once, and a trip through the thread pool per file cost more than the stat (issue 23, item 7).
   */
  intact(job: Job, files: readonly string[]): Promise<boolean> {
    const stamps = job.outputStamps;
    if (!stamps) return Promise.resolve(false);
    const dir = this.layout.workDir(job.taskId, job.nodeId);
    return Promise.resolve(
      files.every((file) => {
        const recorded = stamps[file];
        return recorded !== undefined && stampMatches(join(dir, file), recorded);
      }),
    );
  }

  /**
   * Give a job the outputs (and logs) of the job it reuses: hard links where the file system allows, copies
   * otherwise. Returns the new files' stamps.
   */
  async reuse(hit: CacheHit, spec: ToolJobSpec, taskId: string): Promise<Record<string, FileStamp>> {
    const from = this.layout.workDir(hit.source.taskId, hit.source.nodeId);
    const to = this.layout.workDir(taskId, spec.nodeId);
    const stamps: Record<string, FileStamp> = {};
    for (const [i, file] of spec.outputFiles.entries()) {
      const target = join(to, file);
      await placeCopy(join(from, hit.sourceFiles[i]!), target);
      // A link has its source's stamp; a copy its own.
      stamps[file] = await stampOf(target);
    }
    // Links too: a succeeded job never runs again in place, so neither log is ever written again.
    for (const log of ['stdoutLog', 'stderrLog'] as const) {
      await placeCopy(this.layout[log](hit.source.taskId, hit.source.nodeId), this.layout[log](taskId, spec.nodeId)).catch(() => undefined);
    }
    return stamps;
  }

  /**
   * reuse, for a job of a task being activated (domain/tasks/cached-rerun.ts): its directory is new, so nothing is
   * removed first. With `share` (its task ends as it is created), its directory is a link to the source's when the
   * source's files have the names this job's outputs have (engine/linked-job-dirs.ts): one system call. Else its
   * directories are made one by one from the job's down (a recursive mkdir of a new path first fails on each missing
   * level) and its outputs linked into them. With the file system's calls made directly: an activation places a whole
   * task's outputs at once, and a trip through the thread pool per file (several per job) cost more than the call
   * itself. Its logs are not placed: they are read through cached_from (engine/job-logs.ts), and handed over should
   * the earlier task be deleted.
   */
  async reuseAtActivation(
    source: Job,
    sourceFiles: readonly string[],
    target: { taskId: string; nodeId: string; files: readonly string[] },
    options: { share: boolean } = { share: false },
  ): Promise<Record<string, FileStamp>> {
    this.makeTaskDir(target.taskId);
    if (options.share) {
      const recorded = sharedStamps(source, sourceFiles, target.files);
      if (recorded && linkJobDir(this.layout, source, target)) return recorded;
    }
    const from = this.layout.workDir(source.taskId, source.nodeId);
    const to = this.layout.workDir(target.taskId, target.nodeId);
    const made = new Set<string>([this.layout.taskDir(target.taskId)]);
    const makeOnce = (dir: string) => {
      if (made.has(dir)) return;
      const parent = dirname(dir);
      if (!made.has(parent)) makeOnce(parent);
      try {
        mkdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      made.add(dir);
    };
    const stamps: Record<string, FileStamp> = {};
    for (const [i, file] of target.files.entries()) {
      const placed = join(to, file);
      makeOnce(dirname(placed));
      // A link is the source's file, whose stamp intact() has just checked; a copy has its own.
      const recorded = source.outputStamps?.[sourceFiles[i]!];
      if ((await placeNewCopy(join(from, sourceFiles[i]!), placed)) && recorded) stamps[file] = recorded;
      else {
        const st = statSync(placed);
        stamps[file] = { size: st.size, mtimeMs: st.mtimeMs };
      }
    }
    makeOnce(to);
    return stamps;
  }

  /**
   * For the hits of a task that ends as it is created, when every one reuses the job of one earlier task at its own
   * node under the same file names (a rerun of the same workflow): the task's directory is a link to that task's
   * (engine/linked-job-dirs.ts), one system call for all. Returns each hit's output stamps by node, or undefined (and
   * nothing made) when that is not so: each hit is then placed by reuseAtActivation.
   */
  shareTask(taskId: string, hits: readonly SharedHit[]): Promise<ReadonlyMap<string, Record<string, FileStamp>> | undefined> {
    const sourceTask = hits[0]?.source.taskId;
    const stamps = new Map<string, Record<string, FileStamp>>();
    for (const hit of hits) {
      const recorded = hit.source.taskId === sourceTask && hit.source.nodeId === hit.nodeId ? sharedStamps(hit.source, hit.sourceFiles, hit.files) : undefined;
      if (!recorded) return Promise.resolve(undefined);
      stamps.set(hit.nodeId, recorded);
    }
    const linked = sourceTask !== undefined && linkTaskDir(this.layout, sourceTask, taskId, [...stamps.keys()]);
    return Promise.resolve(linked ? stamps : undefined);
  }

  /** Take back a directory reuseAtActivation made a link (its task runs after all: its jobs get directories of their own). */
  unshare(target: { taskId: string; nodeId: string }): Promise<void> {
    unlinkJobDir(this.layout, target);
    return Promise.resolve();
  }

  /** The directory of an activated task, made for its first hit (a later activation's is another directory). */
  private makeTaskDir(taskId: string): void {
    const dir = this.layout.taskDir(taskId);
    if (dir === this.taskDirMade) return;
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    this.taskDirMade = dir;
  }

  /**
   * The stamps of a job's outputs once it succeeded: a later hit on it needs them unchanged. Read with `statSync`: a
   * stat of a file just written is a read of the inode cache, and a trip through the thread pool per output cost more
   * than the call (issue 23, item 8: it was a tenth of a job's server CPU on the host executor).
   */
  stampOutputs(spec: ToolJobSpec, taskId: string): Record<string, FileStamp> {
    const dir = this.layout.workDir(taskId, spec.nodeId);
    const stamps: Record<string, FileStamp> = {};
    for (const file of spec.outputFiles) {
      const st = statSync(join(dir, file));
      stamps[file] = { size: st.size, mtimeMs: st.mtimeMs };
    }
    return stamps;
  }
}

/**
 * A hit's output stamps when its directory may be its source's: the source's files have this job's names, and their
 * recorded stamps (which intact() has just checked). Undefined when not.
 */
function sharedStamps(source: Job, sourceFiles: readonly string[], files: readonly string[]): Record<string, FileStamp> | undefined {
  const stamps: Record<string, FileStamp> = {};
  for (const [i, file] of files.entries()) {
    const recorded = sourceFiles[i] === file ? source.outputStamps?.[file] : undefined;
    if (recorded === undefined) return undefined;
    stamps[file] = recorded;
  }
  return stamps;
}

const ranFirst = (jobs: Job[]): Job[] => [...jobs.filter((job) => job.cachedFrom === null), ...jobs.filter((job) => job.cachedFrom !== null)];

/** A hard link of `source` at `target`, or a copy (by reflink where possible) across file systems; a file there is removed first. */
async function placeCopy(source: string, target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  await linkOrCopy(source, target, { existingTarget: 'remove', missingSource: 'throw' });
}

/**
 * placeCopy where nothing is at `target` yet, in a directory made already (a new task's): the link without the thread
 * pool; a copy (another file system, links not allowed), which may be long, through it. Returns whether it linked.
 */
async function placeNewCopy(source: string, target: string): Promise<boolean> {
  return (await linkOrCopy(source, target, { existingTarget: 'copy-over', missingSource: 'throw', syncLink: true })) === 'linked';
}
