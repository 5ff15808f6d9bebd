import { newId } from '../../ids.js';
import { AlreadyExists, StoreUnavailable, type NewJob, type Project, type Store } from '../../store/store.js';
import { actorOf, audited } from '../audit.js';
import { invalid } from '../errors.js';
import type { JsonObject } from '../json.js';
import type { Scope } from '../tools/service.js';
import type { StepJobSpec } from './job-spec.js';
import { jobIdFor } from './plan.js';

/** What a run of a document in a language the engine resolves (CWL, WDL) is made of: a task and its root job. */
export interface DeferredRun {
  readonly plan: JsonObject;
  readonly parameters: JsonObject;
  /** The root job's resolver (`cwl`, `wdl`), key and payload. */
  readonly resolver: string;
  readonly rootKey: string;
  readonly payload: JsonObject;
  /** The process's name: the task's workflow name and its root job's. */
  readonly processName: string;
  readonly workflowId: string;
  readonly workflowVersion: number;
  /** The audit's operation (`RunCwl`) and what the target says of the run (`CWL main`). */
  readonly operation: string;
  readonly label: string;
}

/** How many ids a run draws when the one it drew is taken (as ActivateWorkflow). */
const ID_ATTEMPTS = 3;

/**
 * A run's task and its root job, a deferred job (docs/tasks.md, "Deferred jobs") its resolver expands as the run goes.
 * `name` is the name asked for (a task of the project with that name: 400), or makes one from the time and the task's id.
 */
export async function createDeferredRun(
  store: Store,
  scope: Scope,
  project: Project,
  run: DeferredRun,
  name: string | ((at: Date, taskId: string) => string),
): Promise<{ task_id: string; task_name: string }> {
  const at = new Date();
  for (let attempt = 1; ; attempt++) {
    const taskId = newId(at.getTime());
    const taskName = typeof name === 'string' ? name : name(at, taskId);
    const root: StepJobSpec = {
      kind: 'step',
      nodeId: run.rootKey,
      alias: run.rootKey,
      deps: [],
      resolver: run.resolver,
      key: run.rootKey,
      payload: run.payload,
    };
    const rootJob: NewJob = {
      id: jobIdFor(taskId, run.rootKey),
      taskId,
      nodeId: run.rootKey,
      name: run.processName,
      status: 'queued',
      reason: 'ready',
      command: '',
      spec: root,
      attempt: 0,
      cpu: 0,
      memMb: 0,
    };
    const target = `${project.accountName}/${project.name}/tasks/${taskId} (${taskName}, ${run.label})`;
    try {
      await store.createTask(
        {
          id: taskId,
          projectId: project.id,
          name: taskName,
          workflowId: run.workflowId,
          workflowName: run.processName,
          workflowVersion: run.workflowVersion,
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
        audited(actorOf(scope.caller), run.operation, project.accountName, target),
      );
    } catch (error) {
      if (!(error instanceof AlreadyExists)) throw error;
      if (error.key === 'name' && typeof name === 'string') throw invalid(`name '${name}' is already used by a task of project '${project.name}'`);
      if (attempt < ID_ATTEMPTS) continue;
      throw new StoreUnavailable(`no free task id in ${ID_ATTEMPTS} attempts`);
    }
    await store.events.publish({ kind: 'task', taskId });
    return { task_id: taskId, task_name: taskName };
  }
}

/** A task name for a run given none: `<process>_<yyyymmddhhmmss>_<task id>`, which no other task has. */
export function generatedRunName(process: string, at: Date, taskId: string): string {
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const suffix = `_${stamp}_${taskId}`;
  return process.slice(0, 128 - suffix.length) + suffix;
}
