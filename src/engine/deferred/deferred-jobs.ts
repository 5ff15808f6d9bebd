import { join } from 'node:path';
import { expansionOf, type ResolvedRun, type StepJobSpec } from '../../domain/tasks/job-spec.js';
import type { AddedJob, Resolution } from '../../domain/tasks/rules/index.js';
import { jobIdFor } from '../../domain/tasks/plan.js';
import { dependencyOrder, findCycle } from '../../domain/graph-cycle.js';
import type { Json } from '../../store/store.js';
import type { Layout } from '../layout.js';
import type { LiveJob, LiveTask } from '../live-task.js';
import { SANDBOX_DATA_DIR, SANDBOX_INPUTS_DIR } from '../executors/executor.js';
import { nodeIdOf } from './node-ids.js';
import type { Collected, DeferredJob, EndedRun, JobResolver, ResolverAnswer, RunPlaces } from './resolver.js';

/**
 * Asking deferred jobs' resolvers (resolver.ts) on behalf of the worker, and turning their answers, which speak of
 * keys, into what the rules decide on (rules/deferred-rules.ts): jobs with ids, node ids and specs.
 */
export class DeferredJobs {
  constructor(
    private readonly resolvers: Readonly<Record<string, JobResolver>>,
    private readonly layout: Layout,
    private readonly executor: { readonly sandboxed: boolean; readonly containers: boolean },
  ) {}

  /** What a queued deferred job is. Never rejects: what its resolver could not decide fails the job. */
  async resolve(live: LiveTask, entry: LiveJob, signal: AbortSignal): Promise<Resolution> {
    const spec = stepSpecOf(entry);
    let answer: ResolverAnswer;
    try {
      answer = await this.resolverOf(spec).resolve(this.jobOf(live, entry), signal);
    } catch (error) {
      return { kind: 'fail', reason: reasonOf(error) };
    }
    switch (answer.kind) {
      case 'run': {
        const resolved: ResolvedRun = { kind: 'run', ...answer.run };
        return { kind: 'run', spec: { ...spec, resolved }, command: answer.shown ?? resolved.command, cpu: resolved.cpu, memMb: resolved.memMb };
      }
      case 'value':
        return { kind: 'value', outputs: answer.outputs, reason: 'its outputs were evaluated' };
      case 'skip':
        return { kind: 'skip', outputs: answer.outputs, reason: 'skipped: its condition is false' };
      case 'expand':
        return this.expansion(live, entry, spec, answer);
    }
  }

  /** The outputs of a finished run, or why it failed. */
  async collect(live: LiveTask, entry: LiveJob, run: ResolvedRun, ended: EndedRun): Promise<Collected> {
    try {
      return await this.resolverOf(stepSpecOf(entry)).collect(this.jobOf(live, entry), run, ended);
    } catch (error) {
      return { failed: reasonOf(error) };
    }
  }

  /** The outputs of a job whose expansion has ended, or why they cannot be had. */
  async gather(live: LiveTask, entry: LiveJob, signal: AbortSignal): Promise<{ outputs: Json } | { reason: string }> {
    const spec = stepSpecOf(entry);
    const expansion = expansionOf(spec);
    if (!expansion) return { reason: `engine error: job ${entry.job.id} did not expand` };
    try {
      return { outputs: await this.resolverOf(spec).gather(this.jobOf(live, entry), expansion.gather, signal) };
    } catch (error) {
      return { reason: reasonOf(error) };
    }
  }

  jobOf(live: LiveTask, entry: LiveJob): DeferredJob {
    const spec = stepSpecOf(entry);
    return {
      task: live.task,
      jobId: entry.job.id,
      key: spec.key,
      payload: spec.payload,
      outputsOf: (key) => live.byKey.get(key)?.job.outputs ?? undefined,
      hostWorkDir: this.layout.workDir(live.task.id, entry.job.nodeId),
      places: this.placesOf(live.task.id, entry.job.nodeId),
    };
  }

  /** Where the job's files are as its command sees them (resolver.ts, RunPlaces). */
  placesOf(taskId: string, nodeId: string): RunPlaces {
    const stagingRoot = this.executor.sandboxed ? SANDBOX_STAGING_ROOT : hostStagingRoot(this.layout, taskId, nodeId);
    return { workDir: SANDBOX_DATA_DIR, stagingRoot, containers: this.executor.containers, sandboxed: this.executor.sandboxed };
  }

  private resolverOf(spec: StepJobSpec): JobResolver {
    const resolver = this.resolvers[spec.resolver];
    if (!resolver) throw new Error(`this worker has no resolver for '${spec.resolver}' jobs`);
    return resolver;
  }

  /** The jobs an expansion adds, with ids; the keys its jobs wait for become those jobs' ids. */
  private expansion(live: LiveTask, entry: LiveJob, spec: StepJobSpec, answer: Extract<ResolverAnswer, { kind: 'expand' }>): Resolution {
    const taskId = live.task.id;
    const ids = new Map<string, string>();
    for (const job of answer.jobs) {
      if (ids.has(job.key) || live.byKey.has(job.key)) return { kind: 'fail', reason: `engine error: the expansion adds a second job '${job.key}'` };
      ids.set(job.key, jobIdFor(taskId, nodeIdOf(job.key)));
    }
    // Jobs that wait for each other would never start, and hold their task (and a worker's claim) forever.
    const graph = new Map(answer.jobs.map((job) => [job.key, job.deps.filter((key) => ids.has(key))]));
    const cycle = findCycle(graph);
    if (cycle) return { kind: 'fail', reason: `the jobs ${[...cycle, cycle[0]].map((k) => `'${k}'`).join(' -> ')} wait for each other: none can start` };
    // Added in dependency order: a job is wired to the jobs it waits for when it is added (live-task.ts, addJob).
    const byKey = new Map(answer.jobs.map((job) => [job.key, job]));
    const jobs: AddedJob[] = [];
    for (const job of dependencyOrder(graph).map((key) => byKey.get(key)!)) {
      const deps = job.deps.map((key) => ids.get(key) ?? live.byKey.get(key)?.job.id);
      if (deps.some((id) => id === undefined)) return { kind: 'fail', reason: `engine error: job '${job.key}' waits for a job the task does not have` };
      const id = ids.get(job.key)!;
      const nodeId = nodeIdOf(job.key);
      const childSpec: StepJobSpec = {
        kind: 'step',
        nodeId,
        alias: job.key,
        deps: deps as string[],
        resolver: spec.resolver,
        key: job.key,
        payload: job.payload,
        parent: entry.job.id,
      };
      jobs.push({ id, taskId, nodeId, name: job.name, command: '', spec: childSpec, attempt: 0, cpu: 0, memMb: 0 });
    }
    const resolved = { kind: 'expand' as const, children: jobs.map((j) => j.id), gather: answer.gather };
    return { kind: 'expand', spec: { ...spec, resolved }, jobs };
  }
}

function stepSpecOf(entry: LiveJob): StepJobSpec {
  if (entry.spec.kind !== 'step') throw new Error(`job ${entry.job.id} is not a deferred job`);
  return entry.spec;
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Where a sandboxed run finds its inputs: one directory below the inputs area the executors mount. */
export const SANDBOX_STAGING_ROOT = `${SANDBOX_INPUTS_DIR}/inputs`;

/** A host directory for a job's inputs on an executor without a sandbox (resolver.ts, RunPlaces). */
export const hostStagingRoot = (layout: Layout, taskId: string, nodeId: string): string => join(layout.jobDir(taskId, nodeId), 'inputs');
