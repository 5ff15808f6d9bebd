import { createHash } from 'node:crypto';
import { newId } from '../../../ids.js';
import type { RunCwlBody } from '../../../contract/cwl.js';
import { AlreadyExists, StoreUnavailable, type NewJob, type Project, type Store, type Task } from '../../../store/store.js';
import { openProject } from '../../access.js';
import { actorOf, audited } from '../../audit.js';
import { invalid, notFound, Unsupported } from '../../errors.js';
import { describe, isObject, type JsonObject } from '../../json.js';
import { checkName } from '../../names.js';
import { jobIdFor } from '../../tasks/plan.js';
import type { StepJobSpec } from '../../tasks/job-spec.js';
import type { Scope } from '../../tools/service.js';
import { InMemoryDocumentSource } from '../document/source.js';
import { loadDocument } from '../document/load.js';
import { readJob } from '../job.js';
import { bindInputs } from '../types/inputs.js';
import { shortname } from '../uri.js';
import { ROOT_JOB_KEY } from '../workflow/payload.js';
import { loadFormatOntology } from '../types/ontology.js';
import { dataDocuments, dataLocations, hostLocations, type CwlDataLocations } from './locations.js';
import { CWL_DOCUMENT_URI, cwlPlanOf, cwlTaskPlan } from './plan.js';
import { unsupportedFeature } from './unsupported.js';
import { stringifyExactJson } from '../../../contract/exact-json.js';

/** What a new run's task is made of. */
interface NewRun {
  plan: JsonObject;
  parameters: JsonObject;
  /** The job object's values: the root job's payload. */
  inputs: JsonObject;
  /** The process's name, the task's workflow name. */
  processName: string;
  /** A digest of the document, the task's workflow id. */
  digest: string;
  /** The workflow version imported from CWL the run is an ActivateWorkflow of: the task's workflow id and version. */
  workflow?: { id: string; version: number };
}

/** The resolver that runs CWL's deferred jobs (src/engine/cwl/resolver.ts). */
export const CWL_RESOLVER = 'cwl';

/** How many ids a run draws when the one it drew is taken (as ActivateWorkflow). */
const ID_ATTEMPTS = 3;

/**
 * CWL runs (docs/cwl.md, "Running CWL"; the routes `cwl/runs/`): a posted document and job object become a task whose
 * one job is the run's root, a deferred job (docs/tasks.md, "Deferred jobs") that the engine's CWL resolver expands
 * into the workflow's steps as they become known. A run is a task like any other: the task routes, the console, stop,
 * delete and the call cache serve it as they serve every task.
 */
export class CwlRunService {
  constructor(
    private readonly store: Store,
    private readonly locations: CwlDataLocations,
  ) {}

  /**
   * RunCwl, with the body as its schema let it through (contract/cwl.ts): what is checked here is what a schema cannot
   * say (the document is CWL, the job fits it, its locations are in the data store). `workflow`: the workflow version
   * imported from CWL the run is an ActivateWorkflow of (cwl/imports/activation.ts), which the task names.
   */
  async start(scope: Scope, body: RunCwlBody, workflow?: { id: string; name: string; version: number }): Promise<{ task_id: string; task_name: string }> {
    const fragment = processFragment(body.process);
    const explicitName = body.name === undefined || body.name === '' ? undefined : checkName('task_name', body.name);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const account = scope.caller.accountName;

    const document = (await hostLocations(body.document, account, this.locations, 'document')) as JsonObject;
    const job = (await hostLocations(body.job ?? {}, account, this.locations, 'job')) as JsonObject;
    const uri = `${CWL_DOCUMENT_URI}${fragment}`;
    const { process } = await loadDocument(uri, new InMemoryDocumentSource({ [CWL_DOCUMENT_URI]: stringifyExactJson(document) }));
    const unsupported = unsupportedFeature(process);
    if (unsupported !== undefined) throw new Unsupported(unsupported);
    const { values, requirements } = readJob(job, CWL_DOCUMENT_URI, { namespaces: process.namespaces });
    // Checked now, so that a value of the wrong type is a 400 naming the input; the root job binds them again.
    const ontology = process.schemas.length > 0 ? await loadFormatOntology(process.schemas, dataDocuments(account, this.locations)) : undefined;
    bindInputs(process.inputs, values, ontology ? { ontology } : {});
    const plan = cwlTaskPlan({ document, process: uri, ...(requirements.length > 0 ? { requirements } : {}) });
    const run: NewRun = {
      plan: { ...plan, call_caching: null },
      parameters: { job, description: process.label ?? '' },
      inputs: values,
      processName: workflow?.name ?? displayName(process.id),
      digest: createHash('sha256').update(stringifyExactJson(document)).digest('hex').slice(0, 24),
      ...(workflow ? { workflow: { id: workflow.id, version: workflow.version } } : {}),
    };
    return this.create(scope, project, run, explicitName ?? ((at, taskId) => generatedName(run.processName, at, taskId)));
  }

  /**
   * Run a CWL run again (the task routes' rerun, docs/tasks.md "Resume"): the same document and job object, with the
   * run as its reference task, so that its steps whose keys still match come from the call cache.
   */
  async rerun(scope: Scope, task: Task, nameOf: (at: Date, taskId: string) => string): Promise<{ task_id: string; task_name: string }> {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const root = (await this.store.listJobs(task.id)).find((job) => job.nodeId === ROOT_JOB_KEY);
    const payload = root?.spec.payload;
    if (!isObject(payload) || !isObject(payload.inputs)) throw invalid(`task '${task.id}' has no root job to run again`);
    const run: NewRun = {
      plan: { ...task.plan, reference_task: task.id },
      parameters: task.parameters,
      inputs: payload.inputs,
      processName: task.workflowName,
      digest: task.workflowId,
      // A run of a workflow imported from CWL stays one of that version.
      workflow: { id: task.workflowId, version: task.workflowVersion },
    };
    return this.create(scope, project, run, nameOf);
  }

  /** A run's task and its root job; `name` is the name asked for, or makes one from the time and the task's id. */
  private async create(scope: Scope, project: Project, run: NewRun, name: string | ((at: Date, taskId: string) => string)) {
    const at = new Date();
    for (let attempt = 1; ; attempt++) {
      const taskId = newId(at.getTime());
      const taskName = typeof name === 'string' ? name : name(at, taskId);
      const payload = { kind: 'root', inputs: run.inputs };
      const root: StepJobSpec = { kind: 'step', nodeId: ROOT_JOB_KEY, alias: ROOT_JOB_KEY, deps: [], resolver: CWL_RESOLVER, key: ROOT_JOB_KEY, payload };
      const rootJob: NewJob = {
        id: jobIdFor(taskId, ROOT_JOB_KEY),
        taskId,
        nodeId: ROOT_JOB_KEY,
        name: run.processName,
        status: 'queued',
        reason: 'ready',
        command: '',
        spec: root,
        attempt: 0,
        cpu: 0,
        memMb: 0,
      };
      const target = `${project.accountName}/${project.name}/tasks/${taskId} (${taskName}, CWL ${run.processName})`;
      try {
        await this.store.createTask(
          {
            id: taskId,
            projectId: project.id,
            name: taskName,
            workflowId: run.workflow?.id ?? run.digest,
            workflowName: run.processName,
            workflowVersion: run.workflow?.version ?? 1,
            userName: scope.caller.userName,
            status: 'queued',
            reason: 'activated',
            parameters: run.parameters,
            plan: run.plan,
            scheduleAt: null,
            stopRequested: false,
            createdAt: at.getTime() / 1000,
          },
          [rootJob],
          audited(actorOf(scope.caller), 'RunCwl', project.accountName, target),
        );
      } catch (error) {
        if (!(error instanceof AlreadyExists)) throw error;
        if (error.key === 'name' && typeof name === 'string') throw invalid(`name '${name}' is already used by a task of project '${project.name}'`);
        if (attempt < ID_ATTEMPTS) continue;
        throw new StoreUnavailable(`no free task id in ${ID_ATTEMPTS} attempts`);
      }
      await this.store.events.publish({ kind: 'task', taskId });
      return { task_id: taskId, task_name: taskName };
    }
  }

  /** GetCwlRun: the run's state, and its outputs once it succeeded, with gdflow: locations. */
  async get(scope: Scope, taskId: string) {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const task = /^[0-9a-f]{24}$/.test(taskId) ? await this.store.getTask(taskId) : undefined;
    if (!task || task.projectId !== project.id || task.deleteRequested || cwlPlanOf(task.plan) === undefined) {
      throw notFound(`CWL run '${taskId.slice(0, 64)}' does not exist in project '${project.name}'`, 'Task');
    }
    return { task_id: task.id, task_name: task.name, status: task.status, outputs: await this.outputs(task), reason: reasonOf(task) };
  }

  private async outputs(task: Task): Promise<unknown> {
    if (task.status !== 'succeeded') return null;
    const root = (await this.store.listJobs(task.id)).find((job) => job.nodeId === ROOT_JOB_KEY);
    if (!root?.outputs) return null;
    return dataLocations(root.outputs, task.accountName, this.locations);
  }
}

function reasonOf(task: Task): string | null {
  return task.status === 'failed' || task.status === 'stopped' ? task.reason : null;
}

/** `#main`, `main` or nothing: the `$graph` entry to run (none: `#main`, or the document's only process). */
export function processFragment(value: string | undefined): string {
  if (value === undefined || value === '') return '';
  if (!/^#?[^#\s/][^#\s]*$/.test(value) || value.length > 256) {
    throw invalid(`process must name a process of the document's $graph, such as '#main', not ${describe(value)}`);
  }
  return value.startsWith('#') ? value : `#${value}`;
}

/** The process's name for people: its id's last part (`main`, `document.cwl`), as a name may spell it. */
function displayName(id: string): string {
  const name = shortname(id)
    .replace(/\.cwl$/, '')
    .replace(/[^A-Za-z0-9_-]/g, '_');
  return /^[A-Za-z]/.test(name) ? name.slice(0, 64) : `cwl_${name}`.slice(0, 64);
}

/** A task name for a run given none: `<process>_<yyyymmddhhmmss>_<task id>`, which no other task has. */
function generatedName(process: string, at: Date, taskId: string): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const suffix = `_${stamp}_${taskId}`;
  return process.slice(0, 128 - suffix.length) + suffix;
}
