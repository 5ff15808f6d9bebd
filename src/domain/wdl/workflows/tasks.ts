/**
 * The WDL tasks of `wdl/tasks/` (docs/wire.md §8, docs/wdl.md): a stored WDL workflow version run as a gdflow task
 * (the task routes, the console and `tasks/` serve it as every task), the tasks restarted from one, and restarts with
 * `debug_params`.
 */
import { randomBytes } from 'node:crypto';
import type { WdlRestartBody, WdlTaskBody } from '../../../contract/wdl.js';
import type { Store, Task } from '../../../store/store.js';
import type { WdlTaskLink } from '../../../store/wdl.js';
import { openProject } from '../../access.js';
import { invalid, notFound } from '../../errors.js';
import { describe, isObject, type JsonObject } from '../../json.js';
import { checkName, decimalVersion } from '../../names.js';
import { taskView } from '../../tasks/views.js';
import type { Scope } from '../../tools/service.js';
import { readDebugParams, type DebugParam } from './debug-params.js';
import { documentOf, type WdlDocument, type WdlWorkflowService } from './service.js';

/** What a WDL run is started with (the language's WdlRunService.start, domain/wdl/runs/service.ts). */
export interface StartWdlRun {
  sources: { main: string; mainName: string; files?: Record<string, string> };
  inputs: Record<string, unknown>;
  outputDir: string;
  taskName?: string;
  workflow: { id: string; name: string; version: number };
  /** Outputs keep their call's folders under outputDir (true), or all go into it. */
  keepOutputStructure: boolean;
  /** A restart: the task restarted (its succeeded calls are reused) and the calls to run again with changes. */
  restart?: { fromTaskId: string; debug: DebugParam[] };
}

export interface WdlRuns {
  start(scope: Scope, run: StartWdlRun): Promise<{ task_id: string; task_name: string }>;
}

/** What a task was asked to run, as kept in wdl_tasks.request (a restart asks it again). */
interface WdlRequest {
  inputs: Record<string, unknown>;
  output_dir: string;
  keep_output_structure: boolean;
  task_name: string | null;
}

export class WdlTaskService {
  constructor(
    private readonly store: Store,
    private readonly workflows: WdlWorkflowService,
    private readonly runs: WdlRuns,
  ) {}

  /** POST wdl/tasks/: run a version of a WDL workflow. */
  async create(scope: Scope, body: WdlTaskBody): Promise<{ task_id: string; task_name: string }> {
    if (!/^[0-9a-f]{24}$/.test(body.workflow_id)) throw invalid(`workflow_id '${body.workflow_id.slice(0, 64)}' is not a WDL workflow id (24 hex digits)`);
    const version = versionOf(body.workflow_version);
    const taskName = body.task_name === undefined || body.task_name === null || body.task_name === '' ? null : checkName('task_name', body.task_name);
    const inputs = inputsOf(body.inputs);
    const keep = flagOf(body.keep_output_structure, 'keep_output_structure') ?? true;
    const chosen = version ?? (await this.workflows.get(scope, 'workflow', body.workflow_id, undefined)).at(-1)?.version;
    if (chosen === undefined) throw notFound(`WDL workflow '${body.workflow_id}' does not exist in project '${scope.project}'`);
    const files = await this.workflows.versionFiles(scope, 'workflow', body.workflow_id, chosen);
    const outputDir = outputDirOf(body.output_dir, scope, taskName ?? files.name);
    const request: WdlRequest = { inputs, output_dir: outputDir, keep_output_structure: keep, task_name: taskName };
    return this.run(
      scope,
      documentOf(files),
      { workflowId: files.workflowId, version: files.version, sourceId: null, request: request as unknown as JsonObject },
      files.name,
      {},
    );
  }

  /** GET wdl/tasks/?source_id=<task>: the tasks restarted from it, newest first, as the task list answers. */
  async restartedFrom(scope: Scope, sourceId: string) {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const ids = /^[0-9a-f]{24}$/.test(sourceId) ? await this.store.wdl.wdlSubTasks(project.id, sourceId) : [];
    const tasks = (await Promise.all(ids.map((id) => this.store.getTask(id)))).filter((t): t is Task => t !== undefined && !t.deleteRequested);
    const counts = await this.store.jobStatusCounts(tasks.map((t) => t.id));
    const views = tasks.map((t) => taskView(t, counts.get(t.id) ?? {}));
    return { task_list: views, count: views.length, total: views.length, next_cursor: null };
  }

  /**
   * PUT wdl/tasks/<id>/restart/: a new task (its source_id is this one) of the same version, inputs and output_dir,
   * reusing this task's succeeded calls except those `debug_params` names, which run again with their changes, as does
   * everything downstream of them.
   */
  async restart(scope: Scope, taskId: string, body: WdlRestartBody): Promise<{ task_id: string; task_name: string }> {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const task = /^[0-9a-f]{24}$/.test(taskId) ? await this.store.getTask(taskId) : undefined;
    if (!task || task.projectId !== project.id || task.deleteRequested)
      throw notFound(`task '${taskId.slice(0, 64)}' does not exist in project '${project.name}'`, 'Task');
    const link = await this.store.wdl.wdlTask(task.id);
    if (!link) throw invalid(`task '${task.id}' is not a WDL task (restart the others with POST tasks/<id>/rerun/)`);
    const versions = await this.store.wdl.wdlVersions(link.workflowId);
    const version = versions.find((v) => v.version === link.version);
    const files = version && (await this.store.wdl.wdlVersionFiles(version.versionId));
    if (!files) throw invalid(`the WDL workflow version task '${task.id}' ran (${link.workflowId} version ${link.version}) no longer exists`);
    const document = documentOf(files);
    const debug = readDebugParams(body.debug_params);
    const request = { ...(link.request as unknown as WdlRequest), task_name: restartName(task.name) };
    return this.run(scope, document, { ...link, sourceId: task.id, request }, files.name, {
      restart: { fromTaskId: task.id, debug },
    });
  }

  private async run(scope: Scope, document: WdlDocument, link: WdlTaskLink, name: string, extra: Pick<StartWdlRun, 'restart'>) {
    const request = link.request as unknown as WdlRequest;
    const started = await this.runs.start(scope, {
      sources: { main: document.main, mainName: document.mainName, ...(document.files ? { files: document.files } : {}) },
      inputs: request.inputs,
      outputDir: request.output_dir,
      ...(request.task_name !== null ? { taskName: request.task_name } : {}),
      workflow: { id: link.workflowId, name, version: link.version },
      keepOutputStructure: request.keep_output_structure,
      ...extra,
    });
    const task = await this.store.getTask(started.task_id);
    if (task) await this.store.wdl.recordWdlTask(task.id, task.projectId, task.createdAt, link);
    return started;
  }
}

function versionOf(value: WdlTaskBody['workflow_version']): number | undefined {
  if (value === undefined) return undefined;
  const version = typeof value === 'number' ? (Number.isSafeInteger(value) && value >= 1 ? value : undefined) : decimalVersion(value.trim());
  if (version === undefined) throw invalid(`workflow_version ${describe(value)} is not a version (a whole number from 1)`);
  return version;
}

/** The input JSON: an object, or its text (as some clients send the file's content). */
function inputsOf(value: WdlTaskBody['inputs']): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw invalid(`inputs is not a JSON object (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(parsed)) throw invalid(`inputs must be a JSON object ("wf.x": value), not ${describe(parsed)}`);
  return parsed;
}

function flagOf(value: boolean | string | undefined, field: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw invalid(`${field} '${value.slice(0, 16)}' is not true or false`);
}

/** gwc's default is `<account>:/home/admin/<task_name>/`; without one, `/home/<user>/<task or workflow name>/`. */
function outputDirOf(value: string | undefined, scope: Scope, name: string): string {
  if (value === undefined || value === '') return `/home/${scope.caller.userName}/${name}/`;
  if (value.length > 1024) throw invalid('output_dir is longer than 1024 characters');
  if (/[\0\r\n]/.test(value)) throw invalid('output_dir holds a control character');
  return value;
}

/** `<task>_restart_<yyyymmddhhmmss>_<6 hex>`: no two restarts collide, however close. */
function restartName(name: string): string {
  const suffix = `_restart_${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}_${randomBytes(3).toString('hex')}`;
  return name.slice(0, 128 - suffix.length) + suffix;
}
