import { AlreadyExists, StoreUnavailable, type DataProvenance, type Job, type Store, type Task, type Workflow } from '../../store/store.js';
import { parseJobSpec, type JobSpec } from './job-spec.js';
import { waitingFor } from './waiting.js';
import { TERMINAL_TASK_STATES, type TaskStatus } from './states.js';
import { changesOf, NOTHING_RUNS_HERE, stopTask } from './rules/index.js';
import { buildPlan, PlanError } from './plan.js';
import { newId } from '../../ids.js';
import { openProject, PUBLIC_ACCOUNT, DEFAULT_PROJECT } from '../access.js';
import { actorOf, audited } from '../audit.js';
import { forbidden, invalid, notFound } from '../errors.js';
import { isObject, type JsonObject } from '../json.js';
import { checkName } from '../names.js';
import type { ActivateWorkflowBody, ListTasksQuery } from '../../contract/tasks.js';
import type { Scope } from '../tools/service.js';
import type { WorkflowService } from '../workflows/service.js';
import { resolveRun, type DataCatalog } from './activation.js';
import type { CachedRerun } from './cached-rerun.js';
import { jobView, taskView } from './views.js';
import { explainCacheMiss } from './explain.js';
import { plannedOutputs, taskOutputsView } from './outputs.js';
import { formatDataName } from '../../data/index.js';
import { decodeCursor, encodeCursor, FILTERED_COUNT_LIMIT, MAX_LIST, taskStatuses, wholeSeconds } from './list-query.js';
import { generatedName, rerunName, type NameOfTask } from './task-names.js';

/** A task's files on the shared data root (job directories and logs). */
export interface TaskFiles {
  /** Give the jobs of later tasks what they read of this task's files through cached_from (their logs), before it goes. */
  handOver(taskId: string): Promise<void>;
  remove(taskId: string): Promise<void>;
}

/** How long a DELETE waits for the worker holding the task to kill its jobs and remove it. */
const DELETE_WAIT_MS = 30_000;

/** Signed, expiring links to job logs (readable with a plain GET). */
export interface LogLinks {
  url(baseUrl: string, jobId: string): Promise<string>;
  /** Whether the job has any log yet. */
  hasLog(job: Job): Promise<boolean>;
}

/** How many ids an activation draws when the one it drew is taken (8 random bytes in the same second: a second draw is as good as never needed). */
const ID_ATTEMPTS = 3;

/** A job's spec, when it is one this version reads. */
function specOf(job: Job): JobSpec | undefined {
  try {
    return parseJobSpec(job.spec);
  } catch {
    return undefined;
  }
}

/**
 * The job objects of `shown` (default: every job of the task), each with its node alias and what it waits for
 * (waiting.ts): `jobs` are the task's jobs, where a waiting job's upstream jobs are found.
 */
function jobViews(task: Task, jobs: Job[], shown: Job[] = jobs) {
  const byId = new Map(jobs.map((j) => [j.id, j]));
  return shown.map((job) => {
    const spec = specOf(job);
    const upstream = (spec?.deps ?? []).flatMap((id) => {
      const dep = byId.get(id);
      return dep ? [{ nodeId: dep.nodeId, status: dep.status }] : [];
    });
    const waits = waitingFor(job, { taskStatus: task.status, taskHeld: task.heldBy !== null, scheduleAt: task.scheduleAt, upstream });
    const parent = spec?.kind === 'step' && spec.parent !== undefined ? (byId.get(spec.parent)?.nodeId ?? null) : null;
    const disk = spec?.kind === 'step' && spec.resolved?.kind === 'run' ? (spec.resolved.diskMb ?? null) : null;
    return jobView(job, spec?.alias ?? '', waits, { upstream: upstream.map((u) => u.nodeId), parent }, disk);
  });
}

/**
 * Stop a task no worker holds and none of whose jobs runs: its unfinished jobs are cancelled and it ends now, by the
 * rule a worker stops the tasks it holds with (rules/task-rules.ts, stopTask). The caller holds the task's row lock
 * (or SQLite's write lock), so no worker claims it meanwhile.
 */
async function stopUnheld(store: Store, task: Task): Promise<TaskStatus> {
  const jobs = await store.listJobs(task.id);
  const decision = stopTask({ task, jobs: jobs.map((job) => ({ job })) }, NOTHING_RUNS_HERE, Date.now() / 1000);
  await store.applyChanges(changesOf(task.id, decision));
  let status = task.status;
  for (const change of decision.changes) if (change.kind === 'task' && change.patch.status) status = change.patch.status;
  return status;
}

/** What starts a task: from an ActivateWorkflow body, or from an earlier task (rerun). */
interface StartRequest {
  workflowName: string;
  /** Absent: the latest checked version. */
  version: number | undefined;
  /** `<account>[/<project>]` of the workflow, when it is not the caller's. */
  owner: string | undefined;
  /** Absent or null: one is made, by `nameOf` when given (reruns), else in the default form. */
  taskName: string | null | undefined;
  nameOf?: NameOfTask;
  parameters: JsonObject;
  /** Kept with the task's parameters and not read by the run (a WES run's request, domain/wes/service.ts). */
  extra?: JsonObject;
}

/** How the audit log names a task. */
const taskTarget = (task: Task): string => `${task.accountName}/${task.projectName}/tasks/${task.id} (${task.name})`;

/**
 * Runs again a task no workflow made (a CWL run: domain/cwl/runs/service.ts) with the name `nameOf` makes, or answers
 * undefined when the task is not of its kind.
 */
export type OtherRerun = (
  scope: Scope,
  task: Task,
  nameOf: (at: Date, taskId: string) => string,
) => Promise<{ task_id: string; task_name: string }> | undefined;

/** ActivateWorkflow of a workflow imported from CWL: a CWL run of its document (cwl/imports/activation.ts). */
export interface ImportedWorkflowRuns {
  activate(
    scope: Scope,
    workflow: Workflow,
    request: { parameters: JsonObject; taskName: string | null | undefined },
  ): Promise<{ task_id: string; task_name: string }>;
}

/** The CWL runs tasks may be: reruns of CWL runs, and the runs of workflows imported from CWL. */
export interface CwlTasks {
  rerun?: OtherRerun;
  imported?: ImportedWorkflowRuns;
}

/** ActivateWorkflow (INTERFACE.md 4.15) and the task and job routes of docs/wire.md §2. */
export class TaskService {
  constructor(
    private readonly store: Store,
    private readonly workflows: WorkflowService,
    private readonly catalog: DataCatalog,
    private readonly files: TaskFiles,
    private readonly logs: LogLinks,
    private readonly cwl: CwlTasks = {},
    /** The call cache at activation (cached-rerun.ts); absent: every job is left to the worker to look up. */
    private readonly cachedRerun?: CachedRerun,
  ) {}

  /**
   * ActivateWorkflow, with the body as its schema let it through (contract/tasks.ts): what is checked here is what a
   * schema cannot say (the name rules, whose workflow it is, the run parameters against the workflow).
   */
  async activate(scope: Scope, body: ActivateWorkflowBody, extra: JsonObject = {}): Promise<{ task_id: string; task_name: string }> {
    const parameters = body.parameters ?? {};
    const fromParameters = typeof parameters.name === 'string' && parameters.name !== '' ? parameters.name : undefined;
    return this.start(scope, {
      workflowName: checkName('workflow_name', body.workflow_name),
      version: body.workflow_version,
      owner: body.workflow_owner,
      taskName: body.task_name ?? fromParameters,
      parameters,
      extra,
    });
  }

  /** Start a task of a workflow version (the latest checked one without a version), the workflow's owner's or public. */
  private async start(scope: Scope, request: StartRequest): Promise<{ task_id: string; task_name: string }> {
    const { workflowName, version, parameters, nameOf } = request;
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');

    // The workflow: the caller's own (in this project), or another account's public one.
    let ownerAccount = scope.caller.accountName;
    let ownerProject = project.name;
    if (request.owner !== undefined) {
      const [account, projectName] = request.owner.split('/', 2) as [string, string | undefined];
      if (account !== scope.caller.accountName) {
        if (account !== PUBLIC_ACCOUNT) throw forbidden(`workflows of account '${account}' are not public`);
        ownerAccount = account;
        ownerProject = projectName ?? DEFAULT_PROJECT;
      } else if (projectName) ownerProject = projectName;
    }
    const owner = await this.store.getProject(ownerAccount, ownerProject);
    if (!owner) throw notFound(`project '${ownerProject}' of account '${ownerAccount}' does not exist`);
    const workflow =
      version === undefined
        ? (await this.store.getWorkflowVersions(owner.id, workflowName)).filter((w) => w.status === 'checked').pop()
        : await this.store.getWorkflow(owner.id, workflowName, version);
    if (!workflow) {
      throw notFound(
        `workflow '${workflowName}'${version === undefined ? ' has no executable version' : ` version ${version} does not exist`} in ${ownerAccount}/${ownerProject}`,
      );
    }
    if (workflow.cwl !== null) {
      if (!this.cwl.imported) throw invalid(`workflow '${workflow.name}' version ${workflow.version} was imported from CWL, and this server runs no CWL`);
      return this.cwl.imported.activate(scope, workflow, { parameters, taskName: request.taskName });
    }
    const { template, graph } = await this.workflows.runTemplate(workflow);

    const explicitName = request.taskName === undefined || request.taskName === null ? undefined : checkName('task_name', request.taskName);
    const at = new Date();

    for (let attempt = 1; ; attempt++) {
      // The id's leading seconds are the creation time's, as in the generated name.
      const taskId = newId(at.getTime());
      const name = explicitName ?? (nameOf ?? ((when, id) => generatedName(workflow.name, workflow.version, when, id)))(at, taskId);
      const run = await resolveRun({ graph, template, parameters, caller: scope.caller, taskName: name, catalog: this.catalog });
      if (run.referenceTask !== null) await this.checkReferenceTask(scope, run.referenceTask);
      let jobs;
      try {
        jobs = buildPlan(taskId, graph, run);
      } catch (error) {
        if (error instanceof PlanError) throw invalid(error.message);
        throw error;
      }
      const scheduled = run.scheduleAt !== null && run.scheduleAt > Date.now() / 1000;
      const { referenceTask, callCaching } = run;
      const rerun = {
        taskId,
        account: project.accountName,
        jobs,
        referenceTask,
        callCaching,
        cleanupIntermediates: run.cleanupIntermediates,
        at: Date.now() / 1000,
      };
      // A task that starts later is looked up when it does (its inputs may change meanwhile).
      const cached = scheduled ? undefined : await this.cachedRerun?.decide(rerun);
      try {
        await this.store.createTask(
          {
            id: taskId,
            projectId: project.id,
            name,
            workflowId: workflow.id,
            workflowName: workflow.name,
            workflowVersion: workflow.version,
            userName: scope.caller.userName,
            status: scheduled ? 'scheduled' : 'queued',
            reason: scheduled ? `waiting for ${new Date(run.scheduleAt! * 1000).toISOString()}` : 'activated',
            parameters: { ...parameters, description: run.description, ...request.extra },
            plan: {
              jobs: jobs.map((j) => j.id),
              workflow_owner: `${ownerAccount}/${ownerProject}`,
              reference_task: run.referenceTask,
              call_caching: run.callCaching,
              cleanup_intermediates: run.cleanupIntermediates,
            },
            scheduleAt: run.scheduleAt,
            stopRequested: false,
            createdAt: at.getTime() / 1000,
            // Every job a hit: the task ends as it is created, and no worker needs to look at it.
            ...(cached?.taskEnd ? { ended: { reason: cached.taskEnd.reason, at: rerun.at } } : {}),
          },
          jobs.map((job) => ({
            id: job.id,
            taskId,
            nodeId: job.nodeId,
            name: job.name,
            ...(cached?.jobs.get(job.id) ??
              (job.spec.deps.length === 0 ? { status: 'queued', reason: 'ready' } : { status: 'waiting', reason: 'waiting for upstream jobs' })),
            command: job.command,
            spec: job.spec,
            attempt: 0,
            cpu: job.cpu,
            memMb: job.memMb,
          })),
          audited(
            actorOf(scope.caller),
            'ActivateWorkflow',
            project.accountName,
            `${project.accountName}/${project.name}/tasks/${taskId} (${name}, workflow ${ownerAccount}/${ownerProject}/${workflow.name}:${workflow.version})`,
          ),
        );
      } catch (error) {
        // The hits' outputs were put in place for a task that was not created.
        if (cached) await this.files.remove(taskId);
        if (!(error instanceof AlreadyExists)) throw error;
        if (error.key === 'name' && explicitName !== undefined) throw invalid(`task_name '${name}' is already used in project '${project.name}'`);
        // The id was taken (or, for a generated name, which holds the id, a name someone gave an earlier task by
        // hand): a new id settles either.
        if (attempt < ID_ATTEMPTS) continue;
        throw new StoreUnavailable(`no free task id in ${ID_ATTEMPTS} attempts`);
      }
      // Workers find it by polling anyway; the event only saves them the wait.
      if (!cached?.taskEnd) await this.store.events.publish({ kind: 'task', taskId });
      return { task_id: taskId, task_name: name };
    }
  }

  /** A reference task (docs/tasks.md, "Resume") is an earlier task of the caller's account. */
  private async checkReferenceTask(scope: Scope, id: string): Promise<void> {
    const where = 'parameters.Property.reference_task[0].id';
    const task = /^[0-9a-f]{24}$/.test(id) ? await this.store.getTask(id) : undefined;
    if (!task || task.deleteRequested || task.accountName !== scope.caller.accountName) {
      throw invalid(`${where} '${id.slice(0, 64)}' is not a task of account '${scope.caller.accountName}'`);
    }
  }

  private async task(scope: Scope, taskId: string): Promise<Task> {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const task = /^[0-9a-f]{24}$/.test(taskId) ? await this.store.getTask(taskId) : undefined;
    // A task being deleted is gone for clients already (docs/wire.md: after DELETE the task's routes answer 404).
    if (!task || task.projectId !== project.id || task.deleteRequested)
      throw notFound(`task '${taskId.slice(0, 64)}' does not exist in project '${project.name}'`, 'Task');
    return task;
  }

  async get(scope: Scope, taskId: string) {
    const task = await this.task(scope, taskId);
    const counts = await this.store.jobStatusCounts([task.id]);
    return taskView(task, counts.get(task.id) ?? {});
  }

  async list(scope: Scope, query: ListTasksQuery) {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const from = wholeSeconds(query.from, 'from');
    const to = wholeSeconds(query.to, 'to');
    const size = query.size ?? 100;
    if (size > MAX_LIST) throw invalid(`size must be an integer from 1 to ${MAX_LIST}`);
    const offset = query.offset ?? 0;
    const after = query.cursor === undefined || query.cursor === '' ? undefined : decodeCursor(query.cursor);
    const statuses = query.status === undefined || query.status === '' ? undefined : taskStatuses(query.status);
    const nameContains = query.name === undefined || query.name === '' ? undefined : query.name;
    const range = {
      ...(from !== undefined ? { from } : {}),
      ...(to !== undefined ? { to } : {}),
      ...(after ? { after } : {}),
      ...(statuses ? { statuses } : {}),
      ...(nameContains !== undefined ? { nameContains } : {}),
      limit: size,
      offset,
    };
    // A filtered list is counted up to FILTERED_COUNT_LIMIT tasks (docs/api.md, "Paging"): GeneDock's clients filter none.
    const filtered = statuses !== undefined || nameContains !== undefined;
    const { tasks, total, more } = await this.store.listTasks(project.id, filtered ? { ...range, countUpTo: FILTERED_COUNT_LIMIT } : range);
    const counts = await this.store.jobStatusCounts(tasks.map((t) => t.id));
    const views = tasks.map((t) => taskView(t, counts.get(t.id) ?? {}));
    // The next page starts after the last task of this one; the last page has none.
    const last = more ? tasks[tasks.length - 1] : undefined;
    return {
      task_list: views,
      count: views.length,
      total: total ?? null,
      ...(total === undefined ? { total_more_than: FILTERED_COUNT_LIMIT } : {}),
      next_cursor: last ? encodeCursor(last) : null,
    };
  }

  /**
   * Stop: running jobs are killed, nothing further starts. Stopping an ended task is a no-op. The request is
   * written to the store; the worker holding the task carries it out (it hears of it at once through the store's
   * events, or at its next poll). A task no worker holds and none of whose jobs runs is stopped here and now.
   */
  async stop(scope: Scope, taskId: string) {
    const task = await this.task(scope, taskId);
    const audit = audited(actorOf(scope.caller), 'StopTask', task.accountName, taskTarget(task));
    if (TERMINAL_TASK_STATES.includes(task.status)) {
      // Nothing to write, yet the request was made (and answered 200): it is in the log too.
      await this.store.recordAudit(audit);
      return { task_id: task.id, status: task.status };
    }
    const status = await this.store.transaction(async (store) => {
      await store.recordAudit(audit);
      const current = await store.lockTask(task.id);
      if (!current || TERMINAL_TASK_STATES.includes(current.status)) return current?.status;
      if (current.heldBy === null && ((await store.jobStatusCounts([task.id])).get(task.id)?.running ?? 0) === 0) {
        return stopUnheld(store, current);
      }
      await store.updateTask(task.id, { stopRequested: true });
      return current.status;
    });
    await this.store.events.publish({ kind: 'stop', taskId: task.id });
    return { task_id: task.id, status: status ?? task.status };
  }

  /**
   * Delete a task with its jobs and files. A task no worker holds (ended, or not started) is deleted here; one a
   * worker holds is marked, and that worker kills its jobs, removes its files and rows: this waits for that (up to
   * DELETE_WAIT_MS; the task is gone for every reader from the moment it is marked).
   */
  async delete(scope: Scope, taskId: string): Promise<void> {
    const task = await this.task(scope, taskId);
    // While its rows still say which jobs reuse its jobs (for a task a worker holds, the worker does it again: a no-op).
    await this.files.handOver(task.id);
    const deletedHere = await this.store.transaction(async (store) => {
      await store.recordAudit(audited(actorOf(scope.caller), 'DeleteTask', task.accountName, taskTarget(task)));
      const current = await store.lockTask(task.id);
      if (!current) return true;
      const running = (await store.jobStatusCounts([task.id])).get(task.id)?.running ?? 0;
      if (current.heldBy === null && running === 0) return store.deleteTask(task.id);
      await store.updateTask(task.id, { deleteRequested: true });
      return false;
    });
    if (deletedHere) {
      await this.files.remove(task.id);
      return;
    }
    await this.store.events.publish({ kind: 'delete', taskId: task.id });
    const deadline = Date.now() + DELETE_WAIT_MS;
    while (Date.now() < deadline && (await this.store.getTask(task.id)) !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  async jobs(scope: Scope, taskId: string) {
    const task = await this.task(scope, taskId);
    const jobs = await this.store.listJobs(task.id);
    const order = new Map(((task.plan.jobs as string[] | undefined) ?? []).map((id, i) => [id, i]));
    jobs.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    return { jobs: jobViews(task, jobs) };
  }

  private async job(scope: Scope, taskId: string, jobId: string): Promise<Job> {
    return (await this.taskAndJob(scope, taskId, jobId)).job;
  }

  private async taskAndJob(scope: Scope, taskId: string, jobId: string): Promise<{ task: Task; job: Job }> {
    const task = await this.task(scope, taskId);
    const job = await this.store.getJob(jobId);
    if (!job || job.taskId !== task.id) throw notFound(`job '${jobId.slice(0, 200)}' does not exist in task '${task.id}'`, 'Job');
    return { task, job };
  }

  async jobInfo(scope: Scope, taskId: string, jobId: string) {
    const { task, job } = await this.taskAndJob(scope, taskId, jobId);
    const url = (await this.logs.hasLog(job)) ? await this.logs.url(scope.baseUrl, job.id) : '';
    // Only a job that waits for upstream jobs needs the others' states.
    const jobs = job.status === 'waiting' ? await this.store.listJobs(task.id) : [job];
    const [view] = jobViews(task, jobs, [job]);
    return { ...view!, cmd: job.command, Log_downloadURL: url };
  }

  /**
   * Why a job was or was not a call-cache hit (docs/tasks.md, "Explain a miss"): for a miss, the earlier job of the
   * same tool in the account whose key is nearest, and exactly which parts of the key differ.
   */
  async explainJob(scope: Scope, taskId: string, jobId: string) {
    const job = await this.job(scope, taskId, jobId);
    return explainCacheMiss(this.store, scope.caller.accountName, job);
  }

  /**
   * Run a task again from it (docs/tasks.md, "Resume"): a new task of the same workflow version with the same
   * run parameters and outputs, whose reference task is this one, so that its succeeded jobs whose keys still
   * match are reused and only the rest runs.
   */
  async rerun(scope: Scope, taskId: string): Promise<{ task_id: string; task_name: string }> {
    const task = await this.task(scope, taskId);
    const other = this.cwl.rerun?.(scope, task, (at, id) => rerunName(task.name, at, id));
    if (other !== undefined) return other;
    const parameters = structuredClone(task.parameters);
    // The outputs where the task put them (names left blank were given defaults made of the task's name).
    const outputs: Record<string, { data: Array<{ name: string; description: string }> }> = {};
    for (const job of await this.store.listJobs(task.id)) {
      let spec;
      try {
        spec = parseJobSpec(job.spec);
      } catch {
        continue;
      }
      if (spec.kind === 'store') outputs[spec.nodeId] = { data: spec.imports.map((i) => ({ name: formatDataName(i.target), description: i.description })) };
    }
    parameters.Outputs = outputs;
    const property = isObject(parameters.Property) ? parameters.Property : {};
    parameters.Property = { ...property, reference_task: [{ id: task.id }] };
    const owner = typeof task.plan.workflow_owner === 'string' ? task.plan.workflow_owner : undefined;
    return this.start(scope, {
      workflowName: task.workflowName,
      version: task.workflowVersion,
      owner,
      taskName: undefined,
      nameOf: (at, id) => rerunName(task.name, at, id),
      parameters,
    });
  }

  async jobCommand(scope: Scope, taskId: string, jobId: string) {
    const job = await this.job(scope, taskId, jobId);
    return { cmd: job.command };
  }

  /**
   * What the task stored, or is to store (docs/tasks.md, "Outputs"): every item of its store steps with its state in
   * the data store now, the job that wrote it and its store step. Outputs are in the task's account.
   */
  async outputs(scope: Scope, taskId: string) {
    const task = await this.task(scope, taskId);
    const order = new Map(((task.plan.jobs as string[] | undefined) ?? []).map((id, i) => [id, i]));
    const jobs = (await this.store.listJobs(task.id)).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const planned = plannedOutputs(jobs);
    const provenance = new Map<string, DataProvenance>();
    for (const account of new Set(planned.map((p) => p.target.account))) {
      const paths = planned.filter((p) => p.target.account === account).map((p) => p.target.path);
      for (const row of await this.store.getProvenance(account, paths)) provenance.set(formatDataName(row), row);
    }
    const stat = async (ref: { account: string; path: string }) => [formatDataName(ref), await this.catalog.stat(ref).catch(() => undefined)] as const;
    const items = new Map(await Promise.all(planned.map((p) => stat(p.target))));
    return taskOutputsView(task, planned, provenance, items);
  }

  async events(scope: Scope, taskId: string) {
    const task = await this.task(scope, taskId);
    const events = await this.store.taskEvents(task.id);
    return { events: events.map((e) => ({ job_id: e.jobId, from: e.from, to: e.to, reason: e.reason, at: e.at })) };
  }
}
