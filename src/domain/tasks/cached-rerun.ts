import type { CallCacheStore, FileStamp, Job, TaskStore } from '../../store/store.js';
import type { DataCatalog } from './activation.js';
import { sourceFilesFor } from '../cache/key.js';
import type { PlannedJob } from './plan.js';
import {
  endsAtActivation,
  hitsAtActivation,
  jobsAtActivation,
  keysAtActivation,
  taskEndAtActivation,
  type CachedSource,
  type HitAtActivation,
  type JobAtActivation,
  type KeyAtActivation,
} from './rules/cached-at-activation.js';

/**
 * A cached rerun decided at activation (docs/tasks.md, "Call caching"): the keys of the new task's jobs that can be
 * known now, one query for what the cache holds of them, the hits' outputs put in place, and how each job is to be
 * created (rules/cached-at-activation.ts decides; this asks the store and the files). A job that is not a hit here is
 * left to the worker, which looks it up as before.
 */

/** What the call cache needs of the task files (the engine's layout: engine/cache-files.ts). */
export interface CacheFiles {
  /** Whether an earlier job's output files (relative to its working directory) are as its stamps say. */
  intact(job: Job, files: readonly string[]): Promise<boolean>;
  /**
   * Give a new job the outputs of an earlier one: links where the file system allows, copies otherwise. With `share`
   * (the job's task ends as it is created: nothing of it will ever run, write or remove its outputs), its directory may
   * be the earlier job's. Returns the placed files' stamps.
   */
  reuseAtActivation(
    source: Job,
    sourceFiles: readonly string[],
    target: { taskId: string; nodeId: string; files: readonly string[] },
    options: { share: boolean },
  ): Promise<Record<string, FileStamp>>;
  /**
   * Give all the hits of a task that ends as it is created the directory of the one earlier task they reuse, when they
   * can share it whole. Returns the placed files' stamps by node, or undefined (nothing done) when they cannot.
   */
  shareTask(taskId: string, hits: readonly SharedHit[]): Promise<ReadonlyMap<string, Record<string, FileStamp>> | undefined>;
  /** Take back what `share` made of a job's place: a task whose jobs may run keeps no shared directories. */
  unshare(target: { taskId: string; nodeId: string }): Promise<void>;
}

/** A hit, for CacheFiles.shareTask: its node, the job it reuses and that job's files for its outputs. */
export interface SharedHit {
  nodeId: string;
  source: Job;
  sourceFiles: readonly string[];
  files: readonly string[];
}

/** What an activation tells of its task. */
export interface RerunRequest {
  taskId: string;
  account: string;
  jobs: readonly PlannedJob[];
  referenceTask: string | null;
  /** Property.call_caching (null: the server's choice). */
  callCaching: boolean | null;
  /** Property.cleanup_intermediates (null: the server's choice). */
  cleanupIntermediates: boolean | null;
  at: number;
}

/** How the task's jobs are created, and the task's end when it ends as it is created (every job a hit). */
export interface RerunDecision {
  jobs: Map<string, JobAtActivation>;
  taskEnd?: { reason: string };
}

/** How many earlier jobs with the same key are looked at (newest first), as the engine does (engine/call-cache.ts). */
const CANDIDATES = 8;

export class CachedRerun {
  constructor(
    private readonly store: CallCacheStore & Pick<TaskStore, 'listJobs'>,
    private readonly catalog: DataCatalog,
    private readonly files: CacheFiles,
    /** Whether the server reuses jobs at all (`--call-caching`); a reference task is followed either way. */
    private readonly serverCaching: boolean,
    /** Whether a task that says nothing loses its intermediate outputs once it succeeded (`--cleanup-intermediates`). */
    private readonly serverCleanup = false,
  ) {}

  /** How each job is to be created, or undefined when the cache has nothing for the task (create them as before). */
  async decide(request: RerunRequest): Promise<RerunDecision | undefined> {
    const enabled = this.serverCaching && request.callCaching !== false;
    if (!enabled && request.referenceTask === null) return undefined;
    const hashes = await this.knownDataHashes(request.jobs);
    const keys = keysAtActivation(request.jobs, (account, path) => hashes.get(dataKey(account, path)));
    if (keys.size === 0) return undefined;
    const candidates = await this.candidates(
      request,
      [...keys.values()].map((k) => k.key),
      enabled,
    );
    if (candidates.size === 0) return undefined;
    const found = await this.intactSources(request.jobs, keys, candidates);
    const hits = new Map<string, HitAtActivation>();
    const keeps = !(request.cleanupIntermediates ?? this.serverCleanup);
    let mayShare = true;
    for (;;) {
      const decided = hitsAtActivation(request.jobs, found);
      // A task that ends as it is created: its hits may share the directories of the jobs they reuse.
      const share = mayShare && endsAtActivation(request.jobs, decided, keeps);
      const placed = await this.place(request, decided.hits, keys, found, hits, share);
      // A hit whose outputs could not be placed is no hit, nor are the jobs after it: decide again without it. The task
      // will run jobs then: the hits placed so far give back their shared directories and are placed again.
      if (!placed) {
        if (share) {
          for (const job of request.jobs) if (hits.has(job.id)) await this.files.unshare({ taskId: request.taskId, nodeId: job.nodeId });
          hits.clear();
          mayShare = false;
        }
        continue;
      }
      const jobs = jobsAtActivation(request.jobs, hits, decided.loads, request.at);
      const taskEnd = taskEndAtActivation(jobs, request.jobs.length, keeps);
      return taskEnd ? { jobs, taskEnd } : { jobs };
    }
  }

  /** The content hashes of the stored items the task's tool jobs read, where known and the item unchanged since. */
  private async knownDataHashes(jobs: readonly PlannedJob[]): Promise<Map<string, string>> {
    const refs = new Map<string, { account: string; path: string }>();
    for (const job of jobs) {
      if (job.spec.kind !== 'tool') continue;
      for (const { source } of job.spec.mounts) if (source.kind === 'data') refs.set(dataKey(source.account, source.path), source);
    }
    const hashes = new Map<string, string>();
    for (const [name, ref] of refs) {
      // An item not hashed yet is left for the worker to hash (it may be large): the activation does not wait for it.
      const known = await this.store.getContentHash(ref.account, ref.path);
      const stat = known && (await this.catalog.stat(ref).catch(() => undefined));
      if (known && stat && stat.size === known.size && stat.mtimeMs === known.mtimeMs) hashes.set(name, known.sha256);
    }
    return hashes;
  }

  /** Earlier succeeded jobs with these keys, by key: the reference task's first, then the account's newest. */
  private async candidates(request: RerunRequest, keys: string[], enabled: boolean): Promise<Map<string, Job[]>> {
    const wanted = new Set(keys);
    const jobs: Job[] = [];
    if (request.referenceTask !== null) {
      jobs.push(...(await this.store.listJobs(request.referenceTask)).filter((j) => j.status === 'succeeded' && j.cacheKey !== null && wanted.has(j.cacheKey)));
    }
    // With the newest task's other jobs of each key, among which sameNodeFirst looks for the one at a job's own node.
    if (enabled) jobs.push(...(await this.store.findCachedJobsByKeys(request.account, keys, CANDIDATES, { newestTaskWhole: true })));
    const byKey = new Map<string, Job[]>();
    for (const job of jobs) {
      const list = byKey.get(job.cacheKey!);
      if (list) list.push(job);
      else byKey.set(job.cacheKey!, [job]);
    }
    return byKey;
  }

  /** For each keyed job, the first candidate of the same kind whose outputs are intact. */
  private async intactSources(jobs: readonly PlannedJob[], keys: Map<string, KeyAtActivation>, candidates: Map<string, Job[]>): Promise<Map<string, Source>> {
    const found = new Map<string, Source>();
    // Each key's candidates by task and node, for sameNodeFirst (a key may have thousands: one per node of each run).
    const byPlace = new Map<string, Job>();
    for (const [key, list] of candidates) for (const job of list) if (!byPlace.has(placeOf(key, job))) byPlace.set(placeOf(key, job), job);
    await Promise.all(
      jobs.map(async (job) => {
        const key = keys.get(job.id);
        if (!key || job.spec.kind !== 'tool') return;
        const list = candidates.get(key.key) ?? [];
        const first = list[0];
        const sameNode = first && first.nodeId !== job.nodeId ? byPlace.get(placeOf(key.key, { taskId: first.taskId, nodeId: job.nodeId })) : undefined;
        for (const candidate of sameNodeFirst(list, sameNode)) {
          // A job of any language with this key: its files by the outputs' names in the key.
          const files = sourceFilesFor(key.parts, job.spec.outputFiles, candidate.cacheParts);
          if (files === undefined) continue;
          if (await this.files.intact(candidate, files)) {
            found.set(job.id, { id: candidate.id, job: candidate, files });
            return;
          }
        }
      }),
    );
    return found;
  }

  /** Put the hits' outputs in place (those not placed yet); false when one could not be, after taking it out of `found`. */
  private async place(
    request: RerunRequest,
    decided: Set<string>,
    keys: Map<string, KeyAtActivation>,
    found: Map<string, Source>,
    hits: Map<string, HitAtActivation>,
    share: boolean,
  ): Promise<boolean> {
    // Hits of an earlier round that are hits no more (downstream of a failure) keep their placed files: such a job
    // runs from a clean directory when it starts (engine/job-runner.ts).
    for (const id of [...hits.keys()]) if (!decided.has(id)) hits.delete(id);
    if (share && hits.size === 0 && (await this.placeWhole(request, decided, keys, found, hits))) return true;
    let all = true;
    for (const job of request.jobs) {
      if (!decided.has(job.id) || hits.has(job.id) || job.spec.kind !== 'tool') continue;
      const source = found.get(job.id)!;
      try {
        const outputStamps = await this.files.reuseAtActivation(
          source.job,
          source.files,
          {
            taskId: request.taskId,
            nodeId: job.nodeId,
            files: job.spec.outputFiles,
          },
          { share },
        );
        hits.set(job.id, { key: keys.get(job.id)!, source: { id: source.id }, outputStamps });
      } catch {
        found.delete(job.id);
        all = false;
      }
    }
    return all;
  }

  /** place, for a task that ends as it is created, all of whose hits can share one earlier task's directory whole. */
  private async placeWhole(
    request: RerunRequest,
    decided: Set<string>,
    keys: Map<string, KeyAtActivation>,
    found: Map<string, Source>,
    hits: Map<string, HitAtActivation>,
  ): Promise<boolean> {
    const tools = request.jobs.filter((job) => decided.has(job.id) && job.spec.kind === 'tool');
    const shared = tools.map((job) => {
      const source = found.get(job.id)!;
      return { nodeId: job.nodeId, source: source.job, sourceFiles: source.files, files: job.spec.kind === 'tool' ? job.spec.outputFiles : [] };
    });
    const stamps = await this.files.shareTask(request.taskId, shared).catch(() => undefined);
    if (!stamps) return false;
    for (const job of tools) hits.set(job.id, { key: keys.get(job.id)!, source: { id: found.get(job.id)!.id }, outputStamps: stamps.get(job.nodeId)! });
    return true;
  }
}

/**
 * The candidates to look at, in order: the first (the reference task's, else the newest), but `sameNode`, the job of
 * the first's task at this job's node, before it when there is one (a rerun then reuses, and names, the job at its own
 * node of the run before, however many nodes of that run had the same key), then the others up to CANDIDATES. When
 * each hit reuses the job at its own node of one task, a task of hits shares that task's directory whole
 * (CacheFiles.shareTask).
 */
function sameNodeFirst(candidates: readonly Job[], sameNode: Job | undefined): Job[] {
  const firsts = candidates.slice(0, CANDIDATES);
  return sameNode === undefined ? firsts : [sameNode, ...firsts.filter((job) => job !== sameNode)];
}

/** A candidate's place under its key: its task and node. */
const placeOf = (key: string, job: { taskId: string; nodeId: string }): string => `${key}\u0000${job.taskId}\u0000${job.nodeId}`;

interface Source extends CachedSource {
  job: Job;
  files: readonly string[];
}

const dataKey = (account: string, path: string) => `${account}\u0000${path}`;
