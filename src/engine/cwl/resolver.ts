import { join } from 'node:path';
import type { DataStore } from '../../data/index.js';
import type { ExpressionEvaluator } from '../../domain/cwl/expressions/index.js';
import type { CwlOutputObject } from '../../domain/cwl/model.js';
import { collectToolOutputs, exitStatus, prepareToolRun, runExpressionTool } from '../../domain/cwl/tool/index.js';
import { bindInputs } from '../../domain/cwl/types/inputs.js';
import { outputFileNames } from '../../domain/cwl/tool/output-names.js';
import {
  findRequirement,
  gatherJob,
  locateProcess,
  locateStep,
  resolveJob,
  ROOT_JOB_KEY,
  type CwlGatherPayload,
  type CwlJobPayload,
  type CwlResolution,
} from '../../domain/cwl/workflow/index.js';
import type { ResolvedRun } from '../../domain/tasks/job-spec.js';
import type { Json } from '../../store/store.js';
import type { Layout } from '../layout.js';
import type { Collected, DeferredJob, EndedRun, JobResolver, ResolverAnswer } from '../deferred/resolver.js';
import { storeFinalOutputs } from './final-outputs.js';
import { writeLiterals } from './literals.js';
import { LocalFileAccess, LocalOutputDirectory } from './local-files.js';
import type { LoadedRun, LoadedRuns } from './loaded-runs.js';
import { isContainerPath } from '../executors/spec-checks.js';
import { collectedStaging, resolvedRun, type CollectPayload } from './tool-run.js';

/**
 * The engine's resolver of CWL jobs (docs/cwl.md, "Running CWL"): the domain's workflow and tool semantics
 * (src/domain/cwl/workflow, src/domain/cwl/tool) applied to a task's deferred jobs. A workflow or a scatter expands into
 * jobs; a step whose `when` is false is skipped; an ExpressionTool is evaluated in the sandbox (a value); a
 * CommandLineTool is prepared into a run that the executors carry out as any tool job, and its outputs are collected
 * from its working directory afterwards. The root job's outputs (the run's) are stored into the data store.
 */
export class CwlResolver implements JobResolver {
  constructor(
    private readonly runs: LoadedRuns,
    private readonly evaluator: ExpressionEvaluator,
    private readonly layout: Layout,
    private readonly dataStore: DataStore,
  ) {}

  async resolve(job: DeferredJob, _signal: AbortSignal): Promise<ResolverAnswer> {
    const run = await this.runs.of(job.task);
    const files = this.filesOf(job);
    const payload = job.payload as unknown as CwlJobPayload;
    const outputsOf = (key: string) => job.outputsOf(key) as CwlOutputObject | undefined;
    const options = { evaluator: this.evaluator, contents: files, ...(run.ontology ? { ontology: run.ontology } : {}) };
    const resolution = await resolveJob(run, job.key, payload, outputsOf, options);
    switch (resolution.kind) {
      case 'skipped':
        return { kind: 'skip', outputs: resolution.outputs };
      case 'expand': {
        const jobs = resolution.jobs.map((added) => {
          const payload = added.payload as unknown as Json;
          return { key: added.key, name: this.nameOf(run, added.payload), deps: added.deps, payload };
        });
        return { kind: 'expand', jobs, gather: resolution.gather as unknown as Json };
      }
      case 'process':
        return this.process(job, run, payload, resolution, files);
    }
  }

  async collect(job: DeferredJob, resolved: ResolvedRun, ended: EndedRun): Promise<Collected> {
    const run = await this.runs.of(job.task);
    const payload = resolved.collect as unknown as CollectPayload;
    const { process, requirements } = locateProcess(run.root, payload.path, run.jobRequirements);
    if (process.class !== 'CommandLineTool') throw new Error(`engine error: ${process.id} is a ${process.class}, which has no command`);
    const status = exitStatus(process, ended.exitCode);
    if (status !== 'success') return { failed: `${status === 'temporaryFail' ? 'a temporary failure' : 'failed'}: exit code ${ended.exitCode}` };
    const files = this.filesOf(job);
    const runtime = { ...payload.runtime, exitCode: ended.exitCode };
    const options = { effective: requirements, evaluator: this.evaluator, files, staged: payload.staged };
    const outputs = (await collectToolOutputs(process, payload.inputs, runtime, new LocalOutputDirectory(ended.hostWorkDir), options)) as Json;
    return { outputs: await this.final(job, outputs), reason: `exit code ${ended.exitCode}` };
  }

  async gather(job: DeferredJob, gather: Json, _signal: AbortSignal): Promise<Json> {
    const run = await this.runs.of(job.task);
    const outputsOf = (key: string) => job.outputsOf(key) as CwlOutputObject | undefined;
    const outputs = gatherJob(run, gather as unknown as CwlGatherPayload, outputsOf, run.ontology ? { ontology: run.ontology } : {});
    return this.final(job, outputs);
  }

  /** A process with its inputs known: an ExpressionTool's value, or a CommandLineTool's run. */
  private async process(
    job: DeferredJob,
    run: LoadedRun,
    payload: CwlJobPayload,
    resolution: Extract<CwlResolution, { kind: 'process' }>,
    files: LocalFileAccess,
  ): Promise<ResolverAnswer> {
    const { process, requirements: effective } = resolution;
    if (process.class === 'Operation') throw new Error(`${process.id} is an Operation, which gdflow cannot run`);
    const inputs = bindInputs(process.inputs, resolution.inputs, run.ontology ? { ontology: run.ontology } : {});
    const places = { outdir: job.places.workDir, tmpdir: '/tmp' };
    const common = { effective, files, evaluator: this.evaluator, ...(run.ontology ? { ontology: run.ontology } : {}) };
    if (process.class === 'ExpressionTool') {
      const outputs = await runExpressionTool(process, inputs, places, common);
      return { kind: 'value', outputs: await this.final(job, await writeLiterals(outputs, job.hostWorkDir)) };
    }
    const tool = process;
    const docker = findRequirement(effective, 'DockerRequirement');
    const inContainer = job.places.containers && docker !== undefined;
    const outdir = inContainer ? docker.requirement.dockerOutputDirectory : undefined;
    if (outdir !== undefined && !isContainerPath(outdir)) {
      throw new Error(`DockerRequirement.dockerOutputDirectory must be a normalised absolute path other than / outside /proc, /sys and /dev, not ${outdir}`);
    }
    const prepared = await prepareToolRun(tool, inputs, places, {
      ...common,
      container: inContainer,
      stagingRoot: job.places.stagingRoot,
      discoverSecondaryFiles: job.key === ROOT_JOB_KEY,
    });
    const path = payload.kind === 'root' ? [] : payload.path;
    const staged = collectedStaging(prepared);
    const collect = { path, inputs: prepared.inputs, runtime: prepared.runtime, staged, digest: run.digest };
    // The container's working directory is dockerOutputDirectory (runtime.outdir), where the document wants it.
    const moved = outdir !== undefined && outdir !== job.places.workDir ? { workDirPath: outdir } : {};
    const names = await outputFileNames(tool, prepared.inputs, prepared.runtime, effective, this.evaluator);
    return { kind: 'run', run: { ...resolvedRun(prepared, effective, inContainer, collect, { params: tool.outputs, names }), ...moved } };
  }

  /** The run's own outputs (the root job's) go into the data store; any other job's stay where they are. */
  private async final(job: DeferredJob, outputs: Json): Promise<Json> {
    if (job.key !== ROOT_JOB_KEY) return outputs;
    return storeFinalOutputs(outputs, this.dataStore, job.task.accountName, job.task.id, this.rootsOf(job));
  }

  /** The files a job may read: the task's own and the account's data store. */
  private filesOf(job: DeferredJob): LocalFileAccess {
    return new LocalFileAccess({ roots: this.rootsOf(job) });
  }

  private rootsOf(job: DeferredJob): string[] {
    return [this.layout.taskDir(job.task.id), join(this.layout.dataStoreRoot, job.task.accountName)];
  }

  /** A job's name for people: its step's name. */
  private nameOf(run: LoadedRun, payload: CwlJobPayload): string {
    if (payload.kind === 'root') return 'main';
    return locateStep(run.root, payload.path).step.name;
  }
}
