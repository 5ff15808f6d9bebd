import { existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DataStore } from '../data/index.js';
import type { Executor, JobResult, RunSpec, Mount, RunHooks } from './executors/executor.js';
import { sandboxRelative } from './executors/spec-checks.js';
import type { Layout } from './layout.js';
import type { FileSource, JobSpec, SaveJobSpec, ToolJobSpec } from '../domain/tasks/plan.js';
import { cacheKeyOf, type CacheParts } from '../domain/cache/key.js';
import type { StoredItem } from '../domain/tasks/outputs.js';
import type { FileStamp, Json } from '../store/store.js';
import type { CacheContext, CallCache } from './call-cache.js';
import type { RemoteFetch } from './remote-fetch.js';
import { storeTesOutputs } from './tes-outputs.js';
import { stageTes, tesRoots } from './tes-staging.js';

/**
 * Run one job to its end: a tool command through the executor, or a data step in-process.
 * Never throws for a job's own failure: the outcome and its reason come back in the result.
 */

export interface RunContext {
  taskId: string;
  jobId: string;
  layout: Layout;
  dataStore: DataStore;
  /** What a TES task's http(s) inputs are fetched through (absent: none is). */
  remote?: RemoteFetch;
  executor: Executor;
  /** CPU and memory the scheduler granted (the tool's request, capped by the machine). */
  cpu: number;
  memMb: number;
  timeoutSeconds: number;
  signal: AbortSignal;
  /**
   * The job's directories as made ahead by makeJobDirectories for this start, while the job waited for a
   * slot: true when they were made from nothing (so nothing of an earlier attempt is in them).
   */
  madeAhead?: Promise<boolean>;
  /** Called once when the job has started (its first process runs; a data step has begun). */
  onStarted: NonNullable<RunHooks['onStarted']>;
  /** The executor's word on what the job waits for before it starts (an image pull, Slurm's queue). */
  onWaiting?: RunHooks['onWaiting'];
  /** The executor's handle of this job from an earlier owner: wait for that job instead of starting one. */
  adopt?: string;
  /** Call caching for this job (absent: off); `probed`: the engine looked it up already (a miss), see probeCache. */
  cache?: { calls: CallCache; context: CacheContext; probed?: CacheProbe };
}

export type RunResult = Pick<JobResult, 'outcome' | 'exitCode' | 'reason' | 'startedAt' | 'endedAt' | 'peakRssBytes'> & {
  /** The job's call-cache key and what it was made of, when one was computed. */
  cacheKey?: string;
  cacheParts?: CacheParts;
  /** The job whose outputs this one reused. */
  cachedFrom?: string;
  cacheLookup?: 'hit' | 'miss' | 'off';
  /** The stamps of the outputs of a succeeded job that has a key. */
  outputStamps?: Record<string, FileStamp>;
  /** The outputs of a deferred job's run, as its resolver collected them. */
  outputs?: Json;
  /** What a store step put in the data store, however it ended (a failure may come after some items). */
  stored?: StoredItem[];
};

const now = () => Date.now() / 1000;

async function hostPathOf(source: FileSource, context: RunContext): Promise<string> {
  if (source.kind === 'data') return context.dataStore.resolve({ account: source.account, path: source.path });
  return join(context.layout.workDir(context.taskId, source.nodeId), source.path);
}

/**
 * Whether an upstream job's file, as a bind source, stays inside that job's working directory. Sandboxes and
 * container runtimes follow symlinks in bind sources on the host: an output that is a symlink to /etc/shadow
 * would otherwise give the next job the host's file, which its own sandbox hides.
 */
function staysInside(source: FileSource, hostPath: string, context: RunContext): boolean {
  if (source.kind !== 'job') return true; // the data store resolves its paths refusing symlinks
  try {
    const root = realpathSync(context.layout.workDir(context.taskId, source.nodeId));
    return realpathSync(hostPath).startsWith(`${root}/`);
  } catch {
    return false;
  }
}

function describeSource(source: FileSource): string {
  return source.kind === 'data' ? `${source.account}:${source.path}` : `${source.nodeId}'s ${source.path}`;
}

/**
 * The directories a tool job's files go in, below its working directory: those of its outputs and those of its
 * inputs' mount points. The engine makes them before the job starts, ahead of time when it can; they stay after
 * the job (executors remove only what they made themselves).
 */
function jobDirectories(spec: ToolJobSpec, workDir: string): string[] {
  const dirs = new Set([workDir]);
  for (const file of spec.outputFiles) dirs.add(join(workDir, dirname(file)));
  for (const mount of spec.mounts) dirs.add(join(workDir, dirname(sandboxRelative(mount.sandboxPath, 'mount'))));
  return [...dirs];
}

/**
 * Make a waiting job's directories (through the thread pool, while other jobs run): true when its working
 * directory did not exist before, so that they hold nothing of an earlier attempt.
 */
export async function makeJobDirectories(spec: ToolJobSpec, workDir: string): Promise<boolean> {
  // Only the deepest directories are asked for (each call makes the ones above it): a trip through the thread pool
  // wakes one of its threads, which costs more than the directory itself on a virtual machine.
  const dirs = jobDirectories(spec, workDir);
  const [first, ...others] = dirs.filter((dir) => !dirs.some((other) => other.startsWith(`${dir}/`)));
  const madeFrom = await mkdir(first!, { recursive: true });
  // Fresh when the first directory this made is the working directory or one above it.
  if (madeFrom === undefined || !(madeFrom === workDir || workDir.startsWith(`${madeFrom}/`))) return false;
  await Promise.all(others.map((dir) => mkdir(dir, { recursive: true })));
  return true;
}

async function runTool(spec: ToolJobSpec, context: RunContext): Promise<RunResult> {
  const startedAt = now();
  const workDir = context.layout.workDir(context.taskId, spec.nodeId);
  // A re-run starts from scratch: nothing of an earlier attempt is left in the working directory. (An earlier
  // attempt's tree may be large: that removal goes to the thread pool.) Making a directory here blocks the event
  // loop for a fraction of a millisecond, now and then for several while the file system's journal is busy:
  // jobs that waited for a slot find theirs made ahead.
  const fresh = (await context.madeAhead?.catch(() => false)) ?? false;
  if (!fresh) {
    if (existsSync(workDir) && readdirSync(workDir).length > 0) await rm(workDir, { recursive: true, force: true });
    for (const dir of jobDirectories(spec, workDir)) mkdirSync(dir, { recursive: true });
  }
  const mounts: Mount[] = [];
  for (const mount of spec.mounts) {
    const hostPath = await hostPathOf(mount.source, context);
    if (!existsSync(hostPath)) {
      return { outcome: 'failed', exitCode: null, reason: `input ${describeSource(mount.source)} is missing`, startedAt, endedAt: now() };
    }
    if (!staysInside(mount.source, hostPath, context)) {
      return {
        outcome: 'failed',
        exitCode: null,
        reason: `input ${describeSource(mount.source)} is a symbolic link out of its job's directory`,
        startedAt,
        endedAt: now(),
      };
    }
    mounts.push({ hostPath, sandboxPath: mount.sandboxPath, readOnly: true });
  }
  // A TES task that names what this server cannot reach fails before anything, the call cache included.
  if (spec.tes && spec.tes.problems.length > 0) return { outcome: 'failed', exitCode: null, reason: spec.tes.problems.join('; '), startedAt, endedAt: now() };
  const cached = context.cache && spec.callCaching !== false ? (context.cache.probed ?? (await probeCache(spec, context, context.cache))) : undefined;
  if (cached?.result) return withTesOutputs(spec, context, workDir, cached.result);
  if (spec.tes) {
    const problem = await stageTes(spec.tes, workDir, { dataStore: context.dataStore, remote: context.remote }, context.signal);
    if (problem !== undefined) return { outcome: 'failed', exitCode: null, reason: problem, startedAt, endedAt: now() };
  }
  const runSpec = runSpecOf(spec, context, workDir, mounts);
  const hooks: RunHooks = { onStarted: context.onStarted, ...(context.onWaiting ? { onWaiting: context.onWaiting } : {}) };
  const ran = asOutOfMemory(checkOutputs(spec, workDir, await context.executor.run(runSpec, context.signal, hooks)), context.memMb);
  const result = await withTesOutputs(spec, context, workDir, ran);
  if (!cached?.key) return result;
  const keyed = {
    ...result,
    cacheKey: cached.key.key,
    cacheParts: cached.key.parts,
    cacheLookup: cached.lookup,
    ...(cached.note ? { reason: `${result.reason} (not from the cache: ${cached.note})` } : {}),
  };
  if (result.outcome !== 'succeeded') return keyed;
  return { ...keyed, outputStamps: context.cache!.calls.stampOutputs(spec, context.taskId) };
}

/** A TES task's job that succeeded stores its outputs in the data store (tes-staging.ts); a failure to fails it. */
async function withTesOutputs(spec: ToolJobSpec, context: RunContext, workDir: string, result: RunResult): Promise<RunResult> {
  if (!spec.tes || result.outcome !== 'succeeded' || spec.tes.store.length === 0) return result;
  const { stored, failure } = await storeTesOutputs(spec.tes, workDir, context.dataStore, { id: context.jobId, nodeId: spec.nodeId });
  if (failure === undefined) return { ...result, stored };
  // Exit code 0 with the reason: the command succeeded, the system could not keep its output (SYSTEM_ERROR).
  return { ...result, outcome: 'failed', reason: failure, stored, endedAt: now() };
}

/** What the call cache said of a job before it ran (nothing when its key could not be made). */
export interface CacheProbe {
  key?: { parts: CacheParts; key: string };
  lookup?: 'hit' | 'miss' | 'off';
  /** Why an earlier job with the same key was not used. */
  note?: string;
  /** A hit: the job is done. */
  result?: RunResult;
}

/**
 * The call cache before a tool job runs: its key, and a job to reuse. A hit ends the job here (it started and
 * succeeded with the reused outputs); a key that cannot be made (an input that cannot be read, an image that cannot be
 * resolved) leaves the job to run and to fail, if it must, for its own reasons. The engine asks this ahead, without
 * holding a CPU slot (scheduler.ts and job-runs.ts, probe); a job that did not get there asks it when it runs.
 */
export async function probeCache(
  spec: ToolJobSpec,
  context: Pick<RunContext, 'executor' | 'signal' | 'taskId' | 'jobId' | 'onStarted' | 'onWaiting'>,
  cache: NonNullable<RunContext['cache']>,
): Promise<CacheProbe> {
  const { calls, context: task } = cache;
  // The key is made and kept even when reuse is off: a later task may name this one as its reference.
  let key;
  try {
    // An image that cannot be resolved now fails the job when it runs; its key is made without a digest.
    const { executor } = context;
    const imageDigest = spec.image && executor.imageDigest ? await executor.imageDigest(spec.image, context.signal, context.onWaiting).catch(() => null) : null;
    const parts = await calls.partsOf(spec, context.taskId, task, imageDigest);
    key = { parts, key: cacheKeyOf(parts) };
  } catch {
    return {};
  }
  if (!task.enabled && task.referenceTask === null) return { key, lookup: 'off' as const };
  const { hit, note } = await calls.find(key.key, key.parts, context.jobId, spec.outputFiles, task);
  if (!hit) return { key, note, lookup: 'miss' as const };
  const startedAt = now();
  context.onStarted({});
  const outputStamps = await calls.reuse(hit, spec, context.taskId);
  const result: RunResult = {
    outcome: 'succeeded',
    exitCode: 0,
    reason: `from the call cache: the outputs of job ${hit.source.id}`,
    startedAt,
    endedAt: now(),
    cacheKey: key.key,
    cacheParts: key.parts,
    cachedFrom: hit.source.id,
    cacheLookup: 'hit',
    outputStamps,
  };
  return { key, result, lookup: 'hit' as const };
}

/**
 * Exit code 137 (SIGKILL) under a memory limit, from an executor that could not tell why: the kernel's OOM killer
 * is what sends it there, and what a retry with more memory answers (docs/tasks.md, "Retries").
 */
export function asOutOfMemory(result: RunResult, memMb: number): RunResult {
  if (result.outcome !== 'failed' || memMb <= 0) return result;
  if (result.exitCode !== 137 && !/^killed by SIGKILL\b/.test(result.reason)) return result;
  return { ...result, outcome: 'out_of_memory', reason: `out of memory: killed by SIGKILL under the ${memMb} MB limit (${result.reason})` };
}

/** A tool job succeeds when its command exited 0 and it wrote every output it declares. */
function checkOutputs(spec: ToolJobSpec, workDir: string, result: JobResult): RunResult {
  if (result.outcome !== 'succeeded') return result;
  const missing = [];
  for (const file of spec.outputFiles) if (!existsSync(join(workDir, file))) missing.push(`/var/data/${file}`);
  if (missing.length > 0) {
    return { ...result, outcome: 'failed', reason: `the command exited 0 but did not write ${missing.join(', ')}` };
  }
  return result;
}

/** What the executor is given to run a tool job (or to adopt one: then without mounts, which are in place). */
function runSpecOf(spec: ToolJobSpec, context: RunContext, workDir: string, mounts: Mount[]): RunSpec {
  return {
    jobId: context.jobId,
    workDir,
    command: spec.command,
    mounts,
    ...(spec.stdin !== undefined ? { stdin: spec.stdin } : {}),
    ...(spec.stdout !== undefined ? { stdout: spec.stdout } : {}),
    stdoutLog: context.layout.stdoutLog(context.taskId, spec.nodeId),
    stderrLog: context.layout.stderrLog(context.taskId, spec.nodeId),
    cpu: context.cpu,
    memMb: context.memMb,
    network: spec.network,
    timeoutSeconds: context.timeoutSeconds,
    image: spec.image,
    ...(spec.tes ? { roots: tesRoots(spec.tes, workDir) } : {}),
  };
}

/** Wait for a tool job an earlier owner started, through the executor's handle of it (no new process). */
async function adoptTool(spec: ToolJobSpec, context: RunContext, externalId: string): Promise<RunResult> {
  const workDir = context.layout.workDir(context.taskId, spec.nodeId);
  const runSpec = runSpecOf(spec, context, workDir, []);
  context.onStarted({ externalId });
  const hooks = context.onWaiting ? { onWaiting: context.onWaiting } : {};
  const result = asOutOfMemory(checkOutputs(spec, workDir, await context.executor.adopt!(externalId, runSpec, context.signal, hooks)), context.memMb);
  if (result.outcome !== 'succeeded' || !context.cache || spec.callCaching === false) return result;
  return { ...result, outputStamps: context.cache.calls.stampOutputs(spec, context.taskId) };
}

/** A store step: its items into the data store, one by one; the result says which were stored, however it ended. */
async function saveOutputs(spec: SaveJobSpec, context: RunContext, startedAt: number): Promise<RunResult> {
  const stored: StoredItem[] = [];
  const ended = (outcome: RunResult['outcome'], reason: string): RunResult => {
    return { outcome, exitCode: outcome === 'succeeded' ? 0 : null, reason, startedAt, endedAt: now(), stored };
  };
  try {
    for (const entry of spec.imports) {
      if (context.signal.aborted) return ended('killed', 'stopped');
      const source = await hostPathOf(entry.source, context);
      if (!existsSync(source)) return ended('failed', `${describeSource(entry.source)} is missing, nothing to store`);
      const stamp = await context.dataStore.importFile(entry.target, source);
      stored.push({ target: entry.target, source: entry.source, ...stamp });
    }
  } catch (error) {
    return ended('failed', `engine error: ${error instanceof Error ? error.message : String(error)}`);
  }
  return ended('succeeded', `stored ${spec.imports.map((i) => `${i.target.account}:${i.target.path}`).join(', ')}`);
}

export async function runJob(spec: JobSpec, context: RunContext): Promise<RunResult> {
  const startedAt = now();
  try {
    if (spec.kind !== 'tool') context.onStarted({});
    switch (spec.kind) {
      case 'tool':
        if (context.adopt !== undefined && context.executor.adopt) return await adoptTool(spec, context, context.adopt);
        return await runTool(spec, context);
      case 'load': {
        for (const item of spec.items) {
          if (!(await context.dataStore.stat(item))) {
            return { outcome: 'failed', exitCode: null, reason: `input data ${item.account}:${item.path} no longer exists`, startedAt, endedAt: now() };
          }
        }
        return { outcome: 'succeeded', exitCode: 0, reason: `${spec.items.length} item(s) present`, startedAt, endedAt: now() };
      }
      case 'store':
        return await saveOutputs(spec, context, startedAt);
      case 'step':
        throw new Error('a deferred job is run by job-runs.ts, not here');
    }
  } catch (error) {
    return { outcome: 'failed', exitCode: null, reason: `engine error: ${error instanceof Error ? error.message : String(error)}`, startedAt, endedAt: now() };
  }
}
