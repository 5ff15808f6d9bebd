import { keyDifferences, type KeyDifference } from '../cache/differences.js';
import { readCacheParts } from '../cache/key.js';
import type { CallCacheStore, Job, TaskStore } from '../../store/store.js';
import { roundTime } from '../time.js';
import { parseJobSpec, runOf } from './job-spec.js';

/** A deferred job's run that must not come from the cache (job-spec.ts, `reuse: false`). */
function askedToRunAgain(job: Job): boolean {
  try {
    return runOf(parseJobSpec(job.spec))?.reuse === false;
  } catch {
    return false;
  }
}

/** How many of the tool's latest keyed jobs are compared with the job explained. */
const NEAREST_AMONG = 50;

/**
 * Why a job was or was not a call-cache hit (docs/tasks.md, "Explain a miss"). For a miss: among the account's
 * earlier jobs of the same tool that recorded a key, the one with the fewest differing parts (the newest of those),
 * and those parts.
 */
export async function explainCacheMiss(store: CallCacheStore & Pick<TaskStore, 'getJob' | 'getTask'>, account: string, job: Job) {
  const base = { job_id: job.id, cache_hit: job.cachedFrom !== null, cached_from: job.cachedFrom, cache_key: job.cacheKey };
  if (job.cachedFrom !== null) {
    const source = await sourceOf(store, job.cachedFrom);
    const of = source ? ` (${source.language} ${source.name}, of task ${source.task_id}${source.task_name ? ` ${source.task_name}` : ''})` : '';
    return { ...base, summary: `a cache hit: the outputs of job ${job.cachedFrom}${of} were reused`, source, nearest: null, differences: [] };
  }
  const miss = { ...base, source: null };
  const mine = readCacheParts(job.cacheParts);
  if (!mine) {
    const summary = ['waiting', 'queued'].includes(job.status)
      ? 'no key yet: the job has not started'
      : job.cacheParts !== null
        ? 'a key of an older version of gdflow (version 1), which no key made now matches: not compared'
        : job.name === 'loaddata' || job.name === 'storedata'
          ? 'a data step: data steps always run'
          : `no key: tool ${job.name} says its jobs are never reused (call_caching: false)`;
    return { ...miss, summary, nearest: null, differences: [] };
  }
  if (job.cacheLookup === 'off' && askedToRunAgain(job)) {
    const summary = 'not looked up: it was asked to run again (a WDL restart names it or a call it reads); its key is kept for later tasks';
    return { ...miss, summary, nearest: null, differences: [] };
  }
  if (job.cacheLookup === 'off') {
    return {
      ...miss,
      summary: 'not looked up: call caching was off for its task (Property.call_caching) or on the server; its key is kept for later tasks',
      nearest: null,
      differences: [],
    };
  }
  const before = job.startedAt ?? job.endedAt ?? Number.POSITIVE_INFINITY;
  let nearest: { job: Job; differences: KeyDifference[] } | undefined;
  for (const other of await store.keyedJobsOfTool(account, job.name, NEAREST_AMONG)) {
    if (other.id === job.id || other.endedAt === null || other.endedAt > before) continue;
    const theirs = readCacheParts(other.cacheParts);
    if (!theirs) continue;
    const differences = keyDifferences(mine, theirs);
    if (!nearest || differences.length < nearest.differences.length) nearest = { job: other, differences };
  }
  if (!nearest) {
    return { ...miss, summary: `a miss: no earlier job of tool ${job.name} in this account has a key to compare with`, nearest: null, differences: [] };
  }
  const other = nearest.job;
  const view = { job_id: other.id, task_id: other.taskId, status: other.status, endTime: roundTime(other.endedAt!), cache_key: other.cacheKey ?? '' };
  let summary: string;
  if (nearest.differences.length > 0)
    summary = `a miss: the nearest earlier job, ${other.id}, differs: ${nearest.differences.map((d) => d.message).join('; ')}`;
  else if (other.status !== 'succeeded') summary = `a miss: job ${other.id} had the same key, but it ${other.status}`;
  else summary = `a miss: job ${other.id} had the same key, but its outputs were gone or changed when this job ran (cleaned up, or its task deleted)`;
  return { ...miss, summary, nearest: view, differences: nearest.differences };
}

/** The language a job was written in, as explain names it. */
export function languageOf(spec: unknown): string {
  try {
    const parsed = parseJobSpec(spec);
    if (parsed.kind === 'step') return parsed.resolver === 'wdl' ? 'WDL task' : parsed.resolver === 'cwl' ? 'CWL CommandLineTool' : `${parsed.resolver} run`;
    if (parsed.kind === 'tool') return parsed.tes ? 'TES task' : 'GeneDock tool';
    return 'data step';
  } catch {
    return 'job';
  }
}

/** The job a hit reused, with its task and language (null when it is gone: its task deleted since). */
async function sourceOf(store: Pick<TaskStore, 'getJob' | 'getTask'>, id: string) {
  const job = await store.getJob(id);
  if (!job) return null;
  const task = await store.getTask(job.taskId);
  return { job_id: job.id, task_id: job.taskId, task_name: task?.name ?? '', name: job.name, language: languageOf(job.spec) };
}
