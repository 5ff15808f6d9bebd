import { keyDifferences, readCacheParts, type KeyDifference } from '../cache/key.js';
import type { CallCacheStore, Job } from '../../store/store.js';
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
export async function explainCacheMiss(store: CallCacheStore, account: string, job: Job) {
  const base = { job_id: job.id, cache_hit: job.cachedFrom !== null, cached_from: job.cachedFrom, cache_key: job.cacheKey };
  if (job.cachedFrom !== null) {
    return { ...base, summary: `a cache hit: the outputs of job ${job.cachedFrom} were reused`, nearest: null, differences: [] };
  }
  const mine = readCacheParts(job.cacheParts);
  if (!mine) {
    const summary = ['waiting', 'queued'].includes(job.status)
      ? 'no key yet: the job has not started'
      : job.name === 'loaddata' || job.name === 'storedata'
        ? 'a data step: data steps always run'
        : `no key: tool ${job.name} says its jobs are never reused (call_caching: false)`;
    return { ...base, summary, nearest: null, differences: [] };
  }
  if (job.cacheLookup === 'off' && askedToRunAgain(job)) {
    const summary = 'not looked up: it was asked to run again (a WDL restart names it or a call it reads); its key is kept for later tasks';
    return { ...base, summary, nearest: null, differences: [] };
  }
  if (job.cacheLookup === 'off') {
    return {
      ...base,
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
    return { ...base, summary: `a miss: no earlier job of tool ${job.name} in this account has a key to compare with`, nearest: null, differences: [] };
  }
  const other = nearest.job;
  const view = { job_id: other.id, task_id: other.taskId, status: other.status, endTime: roundTime(other.endedAt!), cache_key: other.cacheKey ?? '' };
  let summary: string;
  if (nearest.differences.length > 0)
    summary = `a miss: the nearest earlier job, ${other.id}, differs: ${nearest.differences.map((d) => d.message).join('; ')}`;
  else if (other.status !== 'succeeded') summary = `a miss: job ${other.id} had the same key, but it ${other.status}`;
  else summary = `a miss: job ${other.id} had the same key, but its outputs were gone or changed when this job ran (cleaned up, or its task deleted)`;
  return { ...base, summary, nearest: view, differences: nearest.differences };
}
