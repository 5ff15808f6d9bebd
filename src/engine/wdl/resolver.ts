import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, sha256 } from '../../domain/cache/key.js';
import type { DataStore } from '../../data/index.js';
import type { ResolvedRun } from '../../domain/tasks/job-spec.js';
import type { Task as WdlTask } from '../../domain/wdl/ast.js';
import { documentsByFile } from '../../domain/wdl/run/locate.js';
import type { WdlGatherPayload, WdlJobOutputs, WdlJobPayload } from '../../domain/wdl/run/payload.js';
import { parseCommandText } from '../../domain/wdl/parser/command-text.js';
import { diskShortfall, mountPointsRefusal, runtimeDisksAsk } from '../../domain/wdl/run/disks.js';
import { callRestart } from '../../domain/wdl/run/restart.js';
import { collectTaskOutputs, prepareTask } from '../../domain/wdl/run/task.js';
import { gatherWdlJob, resolveWdlJob, type WdlResolution, type WdlRunContext } from '../../domain/wdl/run/workflow.js';
import { loadWdl } from '../../domain/wdl/index.js';
import { sourcesOf, WDL_ROOT_KEY, wdlPlanOf, type WdlTaskPlan } from '../../domain/wdl/runs/plan.js';
import type { WdlValue } from '../../domain/wdl/values.js';
import type { Json, Task } from '../../store/store.js';
import type { Collected, DeferredJob, EndedRun, JobResolver, ResolverAnswer } from '../deferred/resolver.js';
import type { Layout } from '../layout.js';
import { storeWdlOutputs } from './final-outputs.js';
import { StagingFiles } from './staging-files.js';
import { commandLine } from './command-line.js';
import { STDERR_NAME, STDOUT_NAME, WorkDirFiles } from './work-files.js';
import { WorkflowFiles } from './workflow-files.js';

/** What `collect` needs after a task call's run. */
interface CollectPayload {
  readonly doc: string;
  readonly task: string;
  readonly values: { readonly [name: string]: WdlValue };
  readonly prefix: string;
  readonly alias?: string;
  /** The staged inputs: where the command saw each (`path`) and its host path (`location`, left out of call-cache keys). */
  readonly staged: readonly ({ readonly path: string; readonly location: string } | readonly [string, string])[];
  readonly returnCodes: readonly number[] | '*';
  /** The disks at mount points (ResolvedRun.roots), whose files its outputs may name. */
  readonly roots?: readonly string[];
}

interface Loaded {
  readonly plan: WdlTaskPlan;
  readonly context: Omit<WdlRunContext, 'outputsOf'>;
}

/**
 * What a task's outputs are collected from, in the call cache's terms (job-spec.ts, RunWork): a File output that is a
 * literal relative path is that path; any other output is its declaration (its value may read any file).
 */
function outputRules(task: WdlTask): string[] {
  return task.outputs.map((decl) => {
    const expr = decl.expr;
    const literal =
      expr?.kind === 'string' && expr.parts.length <= 1 && expr.parts.every((part) => typeof part === 'string') ? (expr.parts[0] ?? '') : undefined;
    if (decl.type.kind === 'File' && !decl.type.optional && literal !== undefined && literal !== '' && !literal.startsWith('/')) return literal;
    return `wdl:${sha256(canonicalJson(withoutPositions(decl)))}`;
  });
}

/** A syntax tree without its positions: equal declarations in different places are equal. */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, item]) => (key === 'pos' ? [] : [[key, withoutPositions(item)]])));
}

/** How many tasks' documents a worker keeps parsed. */
const KEPT = 64;

/**
 * The engine's resolver of WDL jobs (docs/wdl.md, "Running WDL"): the domain's workflow semantics (domain/wdl/run)
 * applied to a task's deferred jobs. A workflow, a scatter, a true if and a subworkflow call expand into jobs; a false
 * if is skipped; a declaration is a value; a task call is prepared into a run the executors carry out as any tool job
 * (its image on the container executors, cpu, memory and disks as its resources, maxRetries as its retry policy), its outputs
 * evaluated from its working directory afterwards. The run's own outputs are copied into its output_dir.
 */
export class WdlResolver implements JobResolver {
  private readonly loaded = new Map<string, Loaded>();

  constructor(
    private readonly layout: Layout,
    private readonly dataStore: DataStore,
  ) {}

  resolve(job: DeferredJob, _signal: AbortSignal): Promise<ResolverAnswer> {
    const context = this.contextOf(job);
    const resolution = resolveWdlJob(context, job.key, job.payload as unknown as WdlJobPayload);
    return Promise.resolve(this.answer(job, resolution));
  }

  private answer(job: DeferredJob, resolution: WdlResolution): ResolverAnswer {
    switch (resolution.kind) {
      case 'value':
        return { kind: 'value', outputs: resolution.outputs as unknown as Json };
      case 'skip':
        return { kind: 'skip', outputs: resolution.outputs as unknown as Json };
      case 'expand': {
        const jobs = resolution.jobs.map((added) => ({ key: added.key, name: added.name, deps: added.deps, payload: added.payload }));
        return { kind: 'expand', jobs, gather: resolution.gather as unknown as Json };
      }
      case 'task':
        return { kind: 'run', ...this.taskRun(job, resolution) };
    }
  }

  /** A task call's run, and its rendered command for the job to show; a restart's changes applied (domain/wdl/run/restart.ts). */
  private taskRun(job: DeferredJob, call: Extract<WdlResolution, { kind: 'task' }>): { run: Omit<ResolvedRun, 'kind'>; shown: string } {
    const { plan, context } = this.load(job.task);
    const files = new StagingFiles(job.places.stagingRoot);
    const json = (name: string) => plan.inputs[`${call.prefix}.${name}`];
    const restart = callRestart(plan.restart, call.prefix);
    const override = restart.override;
    const command = override?.command !== undefined ? { command: parseCommandText(override.command, `the restart's command of ${call.prefix}`) } : {};
    const how = { structs: context.bundle.structs, files, json, prefix: call.prefix, stage: (v: WdlValue) => files.stage(v), ...command };
    const prepared = prepareTask(call.task, call.inputs, how);
    const runtime = { ...prepared.runtime, cpu: override?.cpu ?? prepared.runtime.cpu, memMb: override?.memMb ?? prepared.runtime.memMb };
    if (runtime.gpu) throw new Error(`task ${call.task.name} asks for a GPU (runtime gpu: true): this gdflow has none to give`);
    // The job's disk: a restart's debug_params disk (which replaces the task's `disks`, mount points too), else the
    // task's `disks` (docs/wdl.md, "Disks").
    const disks = override?.diskMb === undefined ? prepared.runtime.disks : undefined;
    // Its mount points: directories of the job's own bound there, in a sandbox only (run-step.ts, RunSpec.roots).
    if (disks && disks.mountPoints.length > 0 && !job.places.sandboxed) throw new Error(mountPointsRefusal(call.task.name, disks.mountPoints, disks.where));
    const roots = disks?.mountPoints ?? [];
    const diskMb = override?.diskMb ?? (disks && disks.mb > 0 ? disks.mb : undefined);
    if (diskMb !== undefined) {
      const { bavail, bsize } = statfsSync(this.layout.dataDir);
      const shortfall = diskShortfall(diskMb, bavail * bsize, disks ? runtimeDisksAsk(disks.where) : undefined);
      if (shortfall) throw new Error(shortfall);
    }
    const script = files.write('command', prepared.command);
    const collect: CollectPayload = {
      doc: call.doc,
      task: call.task.name,
      values: prepared.values,
      prefix: call.prefix,
      ...(call.alias !== undefined ? { alias: call.alias } : {}),
      staged: [...files.paths].flatMap(([path, where]) => ('host' in where ? [{ path, location: where.host }] : [])),
      returnCodes: runtime.returnCodes,
      ...(roots.length > 0 ? { roots } : {}),
    };
    const run = {
      command: commandLine(script),
      env: {},
      staging: files.items,
      cpu: runtime.cpu,
      memMb: runtime.memMb,
      ...(diskMb !== undefined ? { diskMb } : {}),
      ...(roots.length > 0 ? { roots: [...roots] } : {}),
      // WDL has no notion of network access: tasks have it, as on every WDL engine.
      network: true,
      image: job.places.containers ? runtime.image : '',
      timeLimit: 0,
      callCaching: true,
      collect: collect as unknown as Json,
      work: {
        script: prepared.command,
        shell: 'bash' as const,
        image: runtime.image,
        entrypoint: false,
        outputs: outputRules(call.task),
        internal: [script],
        streamFiles: { stdout: STDOUT_NAME, stderr: STDERR_NAME },
      },
      ...(runtime.maxRetries > 0 ? { retry: { max_attempts: runtime.maxRetries + 1, on: ['exit_code'] } } : {}),
      // A restart's call run again does not come from the cache, though it is keyed for later tasks.
      ...(restart.rerun ? { reuse: false } : {}),
    };
    return { run, shown: prepared.command };
  }

  async collect(job: DeferredJob, run: ResolvedRun, ended: EndedRun): Promise<Collected> {
    const payload = run.collect as unknown as CollectPayload;
    const codes = payload.returnCodes;
    if (codes !== '*' && !codes.includes(ended.exitCode)) {
      return {
        failed: `exit code ${ended.exitCode}${codes.length === 1 && codes[0] === 0 ? '' : `, which is not among the task's returnCodes ${codes.join(', ')}`}`,
      };
    }
    const { context } = this.load(job.task);
    const task = this.taskOf(context, payload);
    // A run resolved by an earlier gdflow kept [path, host] pairs.
    const entries = payload.staged.map((entry): readonly [string, string] => ('path' in entry ? [entry.path, entry.location] : [entry[0], entry[1]]));
    const staged = new Map(entries.map(([path, host]) => [path, { host }] as const));
    const files = new WorkDirFiles(ended.hostWorkDir, job.places.workDir, staged, payload.roots);
    const outputs = collectTaskOutputs(task, payload.values, context.bundle.structs, files, payload.prefix, payload.alias);
    return { outputs: await this.final(job, outputs), reason: `exit code ${ended.exitCode}` };
  }

  async gather(job: DeferredJob, gather: Json, _signal: AbortSignal): Promise<Json> {
    const outputs = gatherWdlJob(this.contextOf(job), gather as unknown as WdlGatherPayload);
    return this.final(job, outputs);
  }

  /** The run's own outputs (the root job's) are copied into its output_dir; any other job's stay where they are. */
  private async final(job: DeferredJob, outputs: WdlJobOutputs): Promise<Json> {
    if (job.key !== WDL_ROOT_KEY) return outputs;
    const { plan } = this.load(job.task);
    const final = await storeWdlOutputs(outputs, this.dataStore, job.task.accountName, plan.outputDir, this.allowed(job.task));
    return { final, values: outputs };
  }

  private taskOf(context: Loaded['context'], payload: CollectPayload): WdlTask {
    const task = context.docs.get(payload.doc)?.doc.tasks.find((t) => t.name === payload.task);
    if (!task) throw new Error(`engine error: no task ${payload.task} in ${payload.doc}`);
    return task;
  }

  private contextOf(job: DeferredJob): WdlRunContext {
    const { context } = this.load(job.task);
    const files = new WorkflowFiles(this.layout.taskDir(job.task.id), this.allowed(job.task));
    return { ...context, files, outputsOf: (key) => job.outputsOf(key) as unknown as WdlJobOutputs | undefined };
  }

  /** What a run's files may be: its task's directory and its account's data store. */
  private allowed(task: Readonly<Task>): string[] {
    return [this.layout.taskDir(task.id), join(this.layout.dataStoreRoot, task.accountName)];
  }

  /** A task's documents, parsed once per worker (the most recent tasks' kept). */
  private load(task: Readonly<Task>): Loaded {
    const known = this.loaded.get(task.id);
    if (known) return known;
    const plan = wdlPlanOf(task.plan);
    if (!plan) throw new Error(`task ${task.id} is not a WDL run`);
    const bundle = loadWdl(sourcesOf(plan));
    const loaded: Loaded = {
      plan,
      context: { bundle, docs: documentsByFile(bundle.main), inputs: plan.inputs, ...(plan.target !== undefined ? { target: plan.target } : {}) },
    };
    this.loaded.set(task.id, loaded);
    while (this.loaded.size > KEPT) this.loaded.delete(this.loaded.keys().next().value!);
    return loaded;
  }
}
