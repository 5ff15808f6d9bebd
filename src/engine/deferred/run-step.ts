import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedRun } from '../../domain/tasks/job-spec.js';
import type { Executor, RunSpec, RunHooks } from '../executors/executor.js';
import { asOutOfMemory, type RunResult } from '../job-runner.js';
import type { Layout } from '../layout.js';
import { hostStagingRoot } from './deferred-jobs.js';
import type { Collected, EndedRun } from './resolver.js';
import { makeRunRoots } from './run-roots.js';
import { stageRun, StagingError } from './staging.js';
import { findStepHit, reuseWorkDir, stampWorkDir, stepCacheKey, type StepCacheContext } from './step-cache.js';

const now = () => Date.now() / 1000;

/** What running a deferred job's run needs (job-runs.ts gives it). */
export interface StepRunContext {
  taskId: string;
  jobId: string;
  nodeId: string;
  layout: Layout;
  executor: Executor;
  /** Whether the executor has a sandbox (staging.ts). */
  sandboxed: boolean;
  /** Real paths the run's inputs may come from: the task's directory, the account's data store. */
  allowed: readonly string[];
  cpu: number;
  memMb: number;
  /** The server's job timeout (0: none); the run's own time limit applies when shorter. */
  timeoutSeconds: number;
  signal: AbortSignal;
  onStarted: NonNullable<RunHooks['onStarted']>;
  /** Told what the job waits for while it has not started (an image pull, a cluster's queue). */
  onWaiting?: RunHooks['onWaiting'];
  /** The job's resolver turns the finished working directory into its outputs. */
  collect(ended: EndedRun): Promise<Collected>;
  /** Call caching for this job (absent: off); its image digest is looked up here. */
  cache?: Omit<StepCacheContext, 'imageDigest'>;
}

/**
 * Run a deferred job that resolved into a command (docs/tasks.md, "Deferred jobs"): its working directory made afresh,
 * its files staged (staging.ts), the command run by the executor as a tool job's, then its outputs collected by its
 * resolver from the working directory. A command that ran to its end is the resolver's to judge (CWL's successCodes
 * may make an exit code other than 0 a success). Never throws for the job's own failure.
 */
export async function runStep(run: ResolvedRun, context: StepRunContext): Promise<RunResult> {
  const startedAt = now();
  const failed = (reason: string): RunResult => ({ outcome: 'failed', exitCode: null, reason, startedAt, endedAt: now() });
  const { layout, taskId, nodeId } = context;
  const workDir = layout.workDir(taskId, nodeId);
  const inputsTree = join(layout.jobDir(taskId, nodeId), 'staging');
  const hostRoot = hostStagingRoot(layout, taskId, nodeId);
  const elsewhereTree = join(layout.jobDir(taskId, nodeId), 'elsewhere');
  // A run starts from scratch: nothing of an earlier attempt is left.
  await Promise.all([workDir, inputsTree, hostRoot, elsewhereTree].map((dir) => rm(dir, { recursive: true, force: true })));
  await mkdir(workDir, { recursive: true });
  const cached = await lookUp(run, context, startedAt);
  if (cached?.result) return cached.result;
  let spec: RunSpec;
  try {
    const places = {
      workDir,
      inputsTree,
      sandboxed: context.sandboxed,
      hostStagingRoot: hostRoot,
      allowed: context.allowed,
      ...(run.workDirPath !== undefined ? { workDirPath: run.workDirPath } : {}),
      // Only a run in a container may have items elsewhere (the resolver decides that: it knows the executor).
      ...(run.image !== '' ? { elsewhereTree } : {}),
    };
    const mounts = await stageRun(run.staging, places);
    const roots = run.roots && run.roots.length > 0 ? await makeRunRoots(run.roots, workDir) : [];
    spec = executorSpec(run, context, workDir, mounts, roots);
  } catch (error) {
    if (error instanceof StagingError) return failed(error.message);
    throw error;
  }
  const hooks: RunHooks = { onStarted: context.onStarted, ...(context.onWaiting ? { onWaiting: context.onWaiting } : {}) };
  const result = asOutOfMemory(await context.executor.run(spec, context.signal, hooks), context.memMb);
  // Killed, timed out, out of memory, lost, or never started: nothing to collect.
  if (result.exitCode === null || (result.outcome !== 'succeeded' && result.outcome !== 'failed')) return result;
  const collected = await context.collect({ exitCode: result.exitCode, hostWorkDir: workDir });
  const keyed = cached?.key ? { cacheKey: cached.key.key, cacheParts: cached.key.parts, cacheLookup: cached.lookup } : {};
  if ('failed' in collected) return { ...result, ...keyed, outcome: 'failed', reason: collected.failed, endedAt: now() };
  const ended = collected.reason ?? result.reason;
  const reason = cached?.note ? `${ended} (not from the cache: ${cached.note})` : ended;
  const stamps = cached?.key ? { outputStamps: await stampWorkDir(workDir) } : {};
  return { ...result, ...keyed, ...stamps, outcome: 'succeeded', reason, outputs: collected.outputs, endedAt: now() };
}

interface Lookup {
  key?: Awaited<ReturnType<typeof stepCacheKey>>;
  lookup?: 'hit' | 'miss' | 'off';
  note?: string;
  /** A hit: the job is done, with the earlier run's files and the outputs collected from them. */
  result?: RunResult;
}

/**
 * The call cache before the run: its key (kept even when reuse is off: a later task may name this one as its
 * reference), and an earlier run to take. A key that cannot be made (an input that cannot be read) leaves the job to
 * run and fail, if it must, for its own reasons.
 */
async function lookUp(run: ResolvedRun, context: StepRunContext, startedAt: number): Promise<Lookup | undefined> {
  const cache = context.cache;
  if (!cache || !run.callCaching) return undefined;
  let key;
  try {
    const digest = run.image !== '' && context.executor.imageDigest ? await context.executor.imageDigest(run.image, context.signal).catch(() => null) : null;
    // Without a sandbox, inputs are staged under the job's own directory: the key is made without that path.
    const stagingRoot = context.sandboxed ? {} : { stagingRoot: hostStagingRoot(context.layout, context.taskId, context.nodeId) };
    key = await stepCacheKey(run, { ...cache, imageDigest: digest, ...stagingRoot });
  } catch {
    return undefined;
  }
  if (!cache.context.enabled && cache.context.referenceTask === null) return { key, lookup: 'off' };
  if (run.reuse === false) return { key, lookup: 'off', note: 'it was asked to run again' };
  const { hit, note } = await findStepHit(key.key, key.parts, { ...cache, imageDigest: null });
  if (!hit) return { key, lookup: 'miss', ...(note !== undefined ? { note } : {}) };
  context.onStarted({});
  const stamps = await reuseWorkDir(hit, { ...cache, imageDigest: null }, context.nodeId, key.parts, run);
  const exitCode = hit.exitCode ?? 0;
  const collected = await context.collect({ exitCode, hostWorkDir: context.layout.workDir(context.taskId, context.nodeId) });
  // Collected once already from the same files: failing now means they changed; the job runs instead.
  if ('failed' in collected) {
    await rm(context.layout.workDir(context.taskId, context.nodeId), { recursive: true, force: true });
    await mkdir(context.layout.workDir(context.taskId, context.nodeId), { recursive: true });
    return { key, lookup: 'miss', note: `job ${hit.id} had the same key, but its outputs could not be collected again: ${collected.failed}` };
  }
  const result: RunResult = {
    outcome: 'succeeded',
    exitCode,
    reason: `from the call cache: the outputs of job ${hit.id}`,
    startedAt,
    endedAt: now(),
    cacheKey: key.key,
    cacheParts: key.parts,
    cachedFrom: hit.id,
    cacheLookup: 'hit',
    outputStamps: stamps,
    outputs: collected.outputs,
  };
  return { key, lookup: 'hit', result };
}

function executorSpec(run: ResolvedRun, context: StepRunContext, workDir: string, mounts: RunSpec['mounts'], roots: RunSpec['roots'] = []): RunSpec {
  const limits = [context.timeoutSeconds, run.timeLimit].filter((s) => s > 0);
  return {
    jobId: context.jobId,
    workDir,
    command: run.command,
    mounts,
    stdoutLog: context.layout.stdoutLog(context.taskId, context.nodeId),
    stderrLog: context.layout.stderrLog(context.taskId, context.nodeId),
    cpu: context.cpu,
    memMb: context.memMb,
    network: run.network,
    timeoutSeconds: limits.length === 0 ? 0 : Math.min(...limits),
    env: run.env,
    ...(run.image !== '' ? { image: run.image } : {}),
    ...(run.imageEntrypoint === true ? { imageEntrypoint: true } : {}),
    ...(run.workDirPath !== undefined ? { workDirPath: run.workDirPath } : {}),
    ...(roots.length > 0 ? { roots } : {}),
  };
}
