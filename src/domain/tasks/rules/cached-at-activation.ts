import type { EndedJob, FileStamp, JobStatus } from '../../../store/store.js';
import { cacheKeyOf, type CacheParts } from '../../cache/key.js';
import { cachePartsOf } from '../cache-parts.js';
import type { PlannedJob } from '../plan.js';
import { succeededReason } from './task-rules.js';

/**
 * The call cache at activation (docs/tasks.md, "Call caching"): the jobs of a new task whose keys can be known before
 * anything runs (their inputs are stored items whose hashes are known, or outputs of jobs of the task whose keys are
 * known), and, given what the cache holds for those keys, which of them are hits. A hit is created succeeded, with
 * the outputs of the job it reuses, in the task's own transaction: no worker pass per job. Jobs that are not hits are
 * created as before, and the worker looks them up as before. Pure: the keys are made from the plan and the hashes
 * given, the hits from the lookup's answer (domain/tasks/cached-rerun.ts does the asking).
 */

/** A job's key, made at activation. */
export interface KeyAtActivation {
  key: string;
  parts: CacheParts;
}

/** The keys that can be made now, by job id; `dataHash` gives a stored item's content hash when it is known (undefined: it is not). */
export function keysAtActivation(jobs: readonly PlannedJob[], dataHash: (account: string, path: string) => string | undefined): Map<string, KeyAtActivation> {
  const keys = new Map<string, KeyAtActivation>();
  // The plan lists a job after the jobs it depends on (plan.ts): an upstream key is made before it is needed.
  for (const job of jobs) {
    const spec = job.spec;
    // A TES task's job stores its outputs itself, hit or not (engine/job-runner.ts): looked up when it runs.
    if (spec.kind !== 'tool' || spec.callCaching === false || spec.tes) continue;
    const inputs: Record<string, string> = {};
    let known = true;
    for (const mount of spec.mounts) {
      const source = mount.source;
      const hash = source.kind === 'data' ? dataHash(source.account, source.path) : keyedPath(keys.get(source.jobId), source.path);
      if (hash === undefined) {
        known = false;
        break;
      }
      inputs[mount.sandboxPath] = hash;
    }
    if (!known) continue;
    // Only executors that run no image in a container (host, bwrap) have their keys made here: their digest is null.
    const parts = cachePartsOf(spec, inputs, null);
    keys.set(job.id, { key: cacheKeyOf(parts), parts });
  }
  return keys;
}

/** An upstream job's output as a key's input: `<its key>:<its path>` (engine/call-cache.ts, partsOf). */
const keyedPath = (upstream: KeyAtActivation | undefined, path: string): string | undefined => (upstream === undefined ? undefined : `${upstream.key}:${path}`);

/** What the cache holds for a job at activation: the earlier job whose outputs, still intact, it would reuse. */
export interface CachedSource {
  id: string;
}

/**
 * Which jobs are hits: a tool job with a key and a source (`found`) whose upstream jobs are all hits or data steps that
 * load items (the activation checked that those exist); such a load step is done at activation when a job after it
 * is a hit. In the plan's order, so that a job is decided after its upstream jobs.
 */
export function hitsAtActivation(jobs: readonly PlannedJob[], found: ReadonlyMap<string, CachedSource>): { hits: Set<string>; loads: Set<string> } {
  const byId = new Map(jobs.map((job) => [job.id, job]));
  const hits = new Set<string>();
  const loads = new Set<string>();
  for (const job of jobs) {
    if (!found.has(job.id)) continue;
    const upstream = job.spec.deps.map((id) => byId.get(id));
    if (!upstream.every((dep) => dep !== undefined && (hits.has(dep.id) || dep.spec.kind === 'load'))) continue;
    hits.add(job.id);
    for (const dep of upstream) if (dep!.spec.kind === 'load') loads.add(dep!.id);
  }
  return { hits, loads };
}

/**
 * Whether the task will end as it is created, before the hits' outputs are placed: every job a hit or a load step one
 * reads, and the task keeps its intermediate outputs (taskEndAtActivation, once they are placed). Nothing of such a
 * task ever runs, writes or removes its jobs' outputs, so a hit may share the directory of the job it reuses.
 */
export function endsAtActivation(
  jobs: readonly PlannedJob[],
  decided: { hits: ReadonlySet<string>; loads: ReadonlySet<string> },
  keepsIntermediates: boolean,
): boolean {
  return keepsIntermediates && jobs.length > 0 && jobs.every((job) => decided.hits.has(job.id) || decided.loads.has(job.id));
}

/** A hit's end: the key it was found by, the job it reuses and the stamps of its outputs once placed. */
export interface HitAtActivation {
  key: KeyAtActivation;
  source: CachedSource;
  outputStamps: Record<string, FileStamp>;
}

/** How a job is created: its state and reason, and its end when it ends as it is created. */
export interface JobAtActivation {
  status: JobStatus;
  reason: string;
  ended?: EndedJob;
}

/**
 * How each job of the plan is created, given the hits (with their outputs in place) and the load steps done at
 * activation: those end succeeded (as a worker would have written them: one attempt, started and ended now); a job
 * all of whose upstream jobs are among them is queued; the others wait, as without the cache.
 */
export function jobsAtActivation(
  jobs: readonly PlannedJob[],
  hits: ReadonlyMap<string, HitAtActivation>,
  loads: ReadonlySet<string>,
  at: number,
): Map<string, JobAtActivation> {
  const out = new Map<string, JobAtActivation>();
  const done = (id: string) => hits.has(id) || loads.has(id);
  for (const job of jobs) {
    const hit = hits.get(job.id);
    if (hit) {
      const reason = `from the call cache: the outputs of job ${hit.source.id}`;
      const cached = {
        cacheKey: hit.key.key,
        cacheParts: hit.key.parts as unknown as EndedJob['cacheParts'],
        cachedFrom: hit.source.id,
        cacheLookup: 'hit' as const,
      };
      out.set(job.id, { status: 'succeeded', reason, ended: { ...succeededNow(job, reason, at), ...cached, outputStamps: hit.outputStamps } });
    } else if (loads.has(job.id)) {
      const items = job.spec.kind === 'load' ? job.spec.items.length : 0;
      const reason = `${items} item(s) present`;
      out.set(job.id, {
        status: 'succeeded',
        reason,
        ended: { ...succeededNow(job, reason, at), cacheKey: null, cacheParts: null, cachedFrom: null, cacheLookup: null, outputStamps: null },
      });
    } else if (job.spec.deps.length === 0) out.set(job.id, { status: 'queued', reason: 'ready' });
    else if (job.spec.deps.every(done)) out.set(job.id, { status: 'queued', reason: 'upstream jobs succeeded' });
    else out.set(job.id, { status: 'waiting', reason: 'waiting for upstream jobs' });
  }
  return out;
}

/**
 * A task every job of which ends as it is created (hits, and the load steps they read) ends with its creation, as the
 * worker would end it on its first look (task-rules.ts, succeed), so that no worker pass is needed at all. Not when it
 * is to lose its intermediate outputs once it succeeded (`keepsIntermediates` false): that is the worker's to do.
 */
export function taskEndAtActivation(created: ReadonlyMap<string, JobAtActivation>, jobs: number, keepsIntermediates: boolean): { reason: string } | undefined {
  if (!keepsIntermediates || jobs === 0 || created.size !== jobs) return undefined;
  for (const job of created.values()) if (job.status !== 'succeeded') return undefined;
  return { reason: succeededReason(jobs, 0) };
}

/** One attempt that started and succeeded at `at` (what rules/job-rules.ts records of a hit a worker took). */
function succeededNow(job: PlannedJob, reason: string, at: number): Pick<EndedJob, 'attempt' | 'exitCode' | 'startedAt' | 'endedAt' | 'attempts'> {
  const attempt = { attempt: 1, outcome: 'succeeded', exitCode: 0, reason, memMb: job.memMb, peakRssBytes: null, startedAt: at, endedAt: at };
  return { attempt: 1, exitCode: 0, startedAt: at, endedAt: at, attempts: [attempt] };
}
