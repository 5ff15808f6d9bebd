import { createHash } from 'node:crypto';
import type { Store, Task } from '../../../store/store.js';
import { openProject } from '../../access.js';
import { invalid, notFound, Unsupported } from '../../errors.js';
import { isObject, type JsonObject } from '../../json.js';
import { checkName } from '../../names.js';
import { createDeferredRun, generatedRunName } from '../../tasks/deferred-run.js';
import type { Scope } from '../../tools/service.js';
import type { CwlDataLocations } from '../../cwl/runs/locations.js';
import { WdlError, WdlRuntimeError } from '../errors.js';
import { inputDeclarations, loadWdl, taskCallPrefixes, targetOf, type WdlBundle } from '../index.js';
import { checkRuntimeInput } from '../run/runtime.js';
import type { WdlSources } from '../load.js';
import { fromJson } from '../values.js';
import { dataPathOf, hostFiles } from './files.js';
import { restartPlan, type RestartRequest } from './restart-plan.js';
import { WDL_RESOLVER, WDL_ROOT_KEY, wdlPlanOf, wdlTaskPlan } from './plan.js';

/** A WDL run to start (docs/wdl.md, "Running WDL"). */
export interface StartWdlRun {
  readonly sources: WdlSources;
  /** Cromwell-style keys (`wf.x`, `wf.call.y`); File and Directory values are data-store paths (`acct:/home/admin/x.fq`). */
  readonly inputs: { readonly [name: string]: unknown };
  /** Where the final outputs are copied in the data store: `acct:/home/admin/run1/` or `/home/admin/run1/`. */
  readonly outputDir: string;
  readonly taskName?: string;
  /** A task of the main document to run instead of its workflow. */
  readonly target?: string;
  /** The stored WDL workflow version the task runs: its id, name and version are the task's. */
  readonly workflow?: { readonly id: string; readonly name: string; readonly version: number };
  /** A restart: the calls named and those downstream run again, with their changes; the others come from the task restarted. */
  readonly restart?: RestartRequest;
}

/** A runtime attribute an inputs JSON sets for a task call: `wf.call.runtime.memory` (the call's prefix, the attribute). */
const RUNTIME_INPUT = /^(.+)\.runtime\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** The value of `wf.call.runtime.<attribute>`, checked as the call will read it (spec "Specifying / Overriding Runtime Attributes"). */
function runtimeInput(key: string, attribute: string, value: unknown): unknown {
  try {
    checkRuntimeInput(attribute, value);
  } catch (error) {
    if (error instanceof WdlRuntimeError) throw invalid(`inputs.${key}: ${error.message}`);
    throw error;
  }
  return value;
}

/** Parses and checks WDL sources; a document in error is a 400 that names the file, line and column. */
export function checkedWdl(sources: WdlSources): WdlBundle {
  try {
    return loadWdl(sources);
  } catch (error) {
    if (error instanceof WdlError) throw invalid(`the WDL document is not valid: ${error.message}`);
    throw error;
  }
}

/**
 * WDL runs: documents and an inputs JSON become a task whose one job is the run's root, a deferred job that the engine's
 * WDL resolver (src/engine/wdl) expands into the workflow's calls, scatters and conditionals as they become known. A
 * run is a task like any other: the task routes, the console, stop, delete and the call cache serve it.
 */
export class WdlRunService {
  constructor(
    private readonly store: Store,
    private readonly locations: CwlDataLocations,
  ) {}

  async start(scope: Scope, run: StartWdlRun): Promise<{ task_id: string; task_name: string }> {
    const explicitName = run.taskName === undefined || run.taskName === '' ? undefined : checkName('task_name', run.taskName);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const account = scope.caller.accountName;
    const bundle = checkedWdl(run.sources);
    let target;
    try {
      target = targetOf(bundle, run.target);
    } catch (error) {
      if (error instanceof WdlError) throw invalid(error.what);
      throw error;
    }
    if (target.kind === 'task' && target.task.runtime.has('gpu')) {
      // Refused when the value is known (a literal true); an expression is refused when the call is prepared.
      const gpu = target.task.runtime.get('gpu')!;
      if (gpu.kind === 'literal' && gpu.value === true) throw new Unsupported('WDL runtime gpu: this gdflow has no GPU to give');
    }
    const inputs = await this.inputs(bundle, run.inputs, account, run.target);
    const restart = run.restart ? await restartPlan(this.store, project.id, bundle.main, target, run.restart) : undefined;
    const outputDir = dataPathOf(run.outputDir, account, 'output_dir');
    const name = target.kind === 'task' ? target.task.name : target.workflow.name;
    const sources = { main: run.sources.main, mainName: run.sources.mainName ?? 'main.wdl', files: { ...(run.sources.files ?? {}) } };
    const plan = wdlTaskPlan({ sources, ...(run.target !== undefined ? { target: run.target } : {}), inputs, outputDir, ...(restart ? { restart } : {}) });
    const digest = createHash('sha256').update(JSON.stringify(sources)).digest('hex').slice(0, 24);
    const deferred = {
      // A restart's calls not run again come from the task restarted first (the call cache's reference task).
      plan: { ...plan, call_caching: null, ...(restart ? { reference_task: restart.fromTaskId } : {}) },
      parameters: { inputs: run.inputs, output_dir: run.outputDir, description: '' },
      resolver: WDL_RESOLVER,
      rootKey: WDL_ROOT_KEY,
      payload: { kind: 'root' },
      processName: run.workflow?.name ?? name,
      workflowId: run.workflow?.id ?? digest,
      workflowVersion: run.workflow?.version ?? 1,
      operation: 'RunWdl',
      label: `WDL ${name}`,
    };
    return createDeferredRun(this.store, scope, project, deferred, explicitName ?? ((at, taskId) => generatedRunName(deferred.processName, at, taskId)));
  }

  /** The inputs JSON checked against the document (each key an input, each value of its type), File values made host paths. */
  private async inputs(bundle: WdlBundle, given: { readonly [name: string]: unknown }, account: string, target?: string): Promise<JsonObject> {
    if (!isObject(given)) throw invalid('inputs must be a JSON object of "workflow.input": value');
    const declarations = inputDeclarations(bundle, target);
    const calls = taskCallPrefixes(bundle, target);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(given)) {
      const decl = declarations.get(key);
      const runtime = decl ? undefined : RUNTIME_INPUT.exec(key);
      if (runtime && calls.has(runtime[1]!)) {
        out[key] = runtimeInput(key, runtime[2]!, value);
        continue;
      }
      if (!decl) {
        const known = [...declarations.keys()].slice(0, 8).join(', ');
        throw invalid(`inputs.${key} is not an input of this workflow${known ? ` (its inputs: ${known})` : ''}`);
      }
      try {
        fromJson(value, decl.type, bundle.structs, `inputs.${key}`);
      } catch (error) {
        if (error instanceof WdlRuntimeError) throw invalid(error.message);
        throw error;
      }
      out[key] = await hostFiles(value, decl.type, { account, locations: this.locations, structs: bundle.structs }, `inputs.${key}`);
    }
    return out;
  }

  /** A run's outputs once it succeeded (`{"wf.out": value}`, Files as data paths under its output_dir), else null. */
  async outputs(scope: Scope, taskId: string): Promise<{ status: string; outputs: JsonObject | null; reason: string | null }> {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const task = /^[0-9a-f]{24}$/.test(taskId) ? await this.store.getTask(taskId) : undefined;
    if (!task || task.projectId !== project.id || task.deleteRequested || wdlPlanOf(task.plan) === undefined) {
      throw notFound(`WDL task '${taskId.slice(0, 64)}' does not exist in project '${project.name}'`, 'Task');
    }
    return { status: task.status, outputs: await this.rootOutputs(task), reason: task.status === 'failed' || task.status === 'stopped' ? task.reason : null };
  }

  private async rootOutputs(task: Task): Promise<JsonObject | null> {
    if (task.status !== 'succeeded') return null;
    const root = (await this.store.listJobs(task.id)).find((job) => job.nodeId === WDL_ROOT_KEY);
    const outputs = root?.outputs;
    return isObject(outputs) && isObject(outputs.final) ? outputs.final : null;
  }
}
