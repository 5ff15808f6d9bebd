import type { ResolvedRun } from '../../domain/tasks/job-spec.js';
import type { Json, Task } from '../../store/store.js';

/**
 * The engine's side of deferred jobs (docs/tasks.md, "Deferred jobs"): a job whose work is decided when the jobs it
 * depends on have ended. Each job names a resolver (`cwl`; later `wdl`), which the engine asks what the job is, and
 * later what its outputs are. Resolvers know their language; the engine knows only the answers below, the same for
 * every language: run a command, a value, nothing (skipped), or more jobs.
 */

/** Where a run's files are, as its command sees them, on the executor this worker runs jobs with. */
export interface RunPlaces {
  /** The working directory: `/var/data` (the host executor puts its host path in its place, in commands and env). */
  readonly workDir: string;
  /**
   * Where inputs are staged outside the working directory: `/var/lib/cwl/inputs` in a sandbox, a host directory of
   * the job's on the host executor (which has none).
   */
  readonly stagingRoot: string;
  /** Whether the executor runs a job that names an image in a container of that image. */
  readonly containers: boolean;
  /** Whether the executor runs a job in a sandbox or a container, where it can bind directories at the run's `roots`. */
  readonly sandboxed: boolean;
}

/** A deferred job, as its resolver is asked about it. */
export interface DeferredJob {
  readonly task: Readonly<Task>;
  readonly jobId: string;
  /** The job's name among its task's deferred jobs, as the resolver made it. */
  readonly key: string;
  readonly payload: Json;
  /** The outputs of a job of the same task that has ended, by its key (undefined: it has none). */
  outputsOf(key: string): Json | undefined;
  /** The job's working directory on the host (a value's literal files are written there). */
  readonly hostWorkDir: string;
  readonly places: RunPlaces;
}

/** A job an expansion adds: its key, the keys of the jobs of the same expansion it waits for, its payload. */
export interface NewDeferredJob {
  readonly key: string;
  /** Its name for people (a CWL step's name). */
  readonly name: string;
  readonly deps: readonly string[];
  readonly payload: Json;
}

/** What a resolver says a deferred job is. */
export type ResolverAnswer =
  /** `shown`: the command the job shows (`cmd`) when the run's own only starts it (WDL's: a staged script); absent: the run's. */
  | { readonly kind: 'run'; readonly run: Omit<ResolvedRun, 'kind'>; readonly shown?: string }
  | { readonly kind: 'value'; readonly outputs: Json }
  | { readonly kind: 'skip'; readonly outputs: Json }
  | { readonly kind: 'expand'; readonly jobs: readonly NewDeferredJob[]; readonly gather: Json };

/** How a job's run ended, for its resolver to collect: the exit code of a command that ran to its end. */
export interface EndedRun {
  readonly exitCode: number;
  /** The job's working directory on the host. */
  readonly hostWorkDir: string;
}

/** A run's outputs, or why the run failed though its command ended (a missing output, an exit code not among the successes). */
export type Collected = { readonly outputs: Json; readonly reason?: string } | { readonly failed: string };

/**
 * A language's resolver. Every method may reject: the job then fails with the error's message as its reason (what the
 * document or its values got wrong says so itself: a failed expression, a value of the wrong type).
 */
export interface JobResolver {
  /** What the job is, now that the jobs it depends on have ended. */
  resolve(job: DeferredJob, signal: AbortSignal): Promise<ResolverAnswer>;
  /** The outputs of a run, from its finished working directory. */
  collect(job: DeferredJob, run: ResolvedRun, ended: EndedRun): Promise<Collected>;
  /** The outputs of a job that expanded, once the jobs it added have ended. */
  gather(job: DeferredJob, gather: Json, signal: AbortSignal): Promise<Json>;
}
