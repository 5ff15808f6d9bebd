import type { FromSchema } from 'json-schema-to-ts';
import type { tesListQuery } from '../../contract/tes.js';
import type { TesState } from '../../contract/ga4gh-states.js';
import { newId } from '../../ids.js';
import { AlreadyExists, StoreUnavailable, type Job, type Store, type Task } from '../../store/store.js';
import { openProject, type Caller } from '../access.js';
import { actorOf, audited } from '../audit.js';
import { invalid, notFound } from '../errors.js';
import { decodePageToken, encodePageToken } from '../ga4gh/page-token.js';
import { jobIdFor } from '../tasks/plan.js';
import type { TaskService } from '../tasks/service.js';
import { compileTesTask, TES_NODE, type TesTaskBody } from './compile.js';
import type { TesStagingPolicy } from './locations.js';
import { statusesOf, tesState } from '../ga4gh/states.js';
import { tesDocument, tesTaskView, type TesFiles, type TesView } from './views.js';

/**
 * GA4GH TES 1.1 on gdflow's engine (docs/ga4gh.md). A TES task is a gdflow task of one job (a tool job whose command
 * runs the executors in order): the GeneDock task routes, the console, the metrics and the audit log show it as any
 * other task. A client works in one project: its token's, or its account's default one.
 */

/** Who asks, and in which project of their account. */
export interface TesScope {
  caller: Caller;
  project: string;
}

export type TesListQuery = FromSchema<typeof tesListQuery>;

/** What gdflow's TES tasks name as their workflow (no workflow has this name: ':' is not allowed in names). */
export const TES_WORKFLOW_NAME = 'ga4gh:tes';
const DEFAULT_PAGE = 256;
/** How many tasks a filtered page reads at most while it looks for page_size matches (states decided task by task). */
const SCAN_LIMIT = 5000;

/** The gdflow task name of a TES task: its TES name made a name, with the task id, which makes it unique. */
function gdflowName(tesName: string | undefined, taskId: string): string {
  const base = (tesName ?? '')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[^A-Za-z]+/, '')
    .slice(0, 100);
  return `${base || 'tes'}_${taskId}`;
}

/** tag_key and tag_value as TES pairs them: by place; a key without a value (or with an empty one) matches any value. */
function tagFilter(query: TesListQuery): Array<{ key: string; value?: string }> {
  const keys = query.tag_key ?? [];
  const values = query.tag_value ?? [];
  if (values.length > keys.length)
    throw invalid(`tag_value is given ${values.length} times but tag_key only ${keys.length}: each value belongs to the tag_key at its place`);
  return keys.map((key, i) => (values[i] === undefined || values[i] === '' ? { key } : { key, value: values[i] }));
}

export class TesService {
  constructor(
    private readonly store: Store,
    private readonly tasks: TaskService,
    private readonly files: TesFiles,
    readonly policy: TesStagingPolicy,
  ) {}

  async create(scope: TesScope, body: TesTaskBody): Promise<{ id: string }> {
    const { project } = await openProject(this.store, scope.caller, scope.caller.accountName, scope.project, 'write');
    const compiled = compileTesTask(body, scope.caller.accountName, this.policy);
    const at = new Date();
    for (let attempt = 1; ; attempt++) {
      const taskId = newId(at.getTime());
      const name = gdflowName(body.name, taskId);
      const jobId = jobIdFor(taskId, TES_NODE);
      try {
        await this.store.createTask(
          {
            id: taskId,
            projectId: project.id,
            name,
            workflowId: '',
            workflowName: TES_WORKFLOW_NAME,
            workflowVersion: 1,
            userName: scope.caller.userName,
            status: 'queued',
            reason: 'created through GA4GH TES',
            parameters: { tes: compiled.document, description: body.description ?? '' },
            plan: { jobs: [jobId], tes: true, reference_task: null, call_caching: null, cleanup_intermediates: false },
            scheduleAt: null,
            stopRequested: false,
            createdAt: at.getTime() / 1000,
            tes: { name: body.name ?? '', tags: compiled.tags },
          },
          [
            {
              id: jobId,
              taskId,
              nodeId: TES_NODE,
              name: 'tes',
              status: 'queued',
              reason: 'ready',
              command: compiled.spec.command,
              spec: compiled.spec,
              attempt: 0,
              cpu: compiled.cpu,
              memMb: compiled.memMb,
            },
          ],
          audited(actorOf(scope.caller), 'CreateTesTask', project.accountName, `${project.accountName}/${project.name}/tasks/${taskId} (${name}, TES)`),
        );
      } catch (error) {
        if (!(error instanceof AlreadyExists)) throw error;
        if (attempt < 3) continue;
        throw new StoreUnavailable('no free task id in 3 attempts');
      }
      await this.store.events.publish({ kind: 'task', taskId });
      return { id: taskId };
    }
  }

  /** The task and its job, when it is a TES task of the scope's project. */
  private async taskOf(scope: TesScope, id: string): Promise<{ task: Task; job: Job | undefined }> {
    const { project } = await openProject(this.store, scope.caller, scope.caller.accountName, scope.project, 'read');
    const task = /^[0-9a-f]{24}$/.test(id) ? await this.store.getTask(id) : undefined;
    if (!task || task.projectId !== project.id || task.deleteRequested || !tesDocument(task)) {
      throw notFound(`task '${id.slice(0, 64)}' does not exist (among the TES tasks of ${project.accountName}/${project.name})`);
    }
    return { task, job: (await this.store.listJobs(task.id))[0] };
  }

  async get(scope: TesScope, id: string, view: TesView = 'MINIMAL'): Promise<Record<string, unknown>> {
    const { task, job } = await this.taskOf(scope, id);
    return tesTaskView(task, job, tesState(task, job), view, this.files);
  }

  async list(scope: TesScope, query: TesListQuery): Promise<{ tasks: Array<Record<string, unknown>>; next_page_token?: string }> {
    const { project } = await openProject(this.store, scope.caller, scope.caller.accountName, scope.project, 'read');
    const pageSize = query.page_size ?? DEFAULT_PAGE;
    const wanted = query.state;
    const tags = tagFilter(query);
    let after = query.page_token ? decodePageToken(query.page_token) : undefined;
    const found: Array<{ task: Task; job: Job | undefined; state: TesState }> = [];
    let scanned = 0;
    let more = true;
    let last: Task | undefined;
    // States are decided task by task (states.ts): a state filter reads the tasks of the gdflow states it can be in,
    // and keeps those in it, batch after batch, until the page is full (or SCAN_LIMIT tasks were read: then the page
    // is shorter, and the token goes on from where it stopped).
    while (found.length < pageSize && more && scanned < SCAN_LIMIT) {
      const batch = await this.store.listTesTasks(project.id, {
        limit: pageSize - found.length,
        ...(after ? { after } : {}),
        ...(query.name_prefix ? { namePrefix: query.name_prefix } : {}),
        ...(wanted ? { statuses: statusesOf(wanted) } : {}),
        ...(tags.length > 0 ? { tags } : {}),
      });
      more = batch.more;
      scanned += batch.tasks.length;
      for (const task of batch.tasks) {
        const job = (await this.store.listJobs(task.id))[0];
        const state = tesState(task, job);
        if (!wanted || state === wanted) found.push({ task, job, state });
        last = task;
      }
      if (last) after = { createdAt: last.createdAt, id: last.id };
      if (batch.tasks.length === 0) break;
    }
    const view = query.view ?? 'MINIMAL';
    const tasks = await Promise.all(found.map(({ task, job, state }) => tesTaskView(task, job, state, view, this.files)));
    return { tasks, ...(more && last ? { next_page_token: encodePageToken(last) } : {}) };
  }

  /** Cancel: as GeneDock's stop (its job is killed, nothing more starts); an ended task stays as it is. */
  async cancel(scope: TesScope, id: string, baseUrl: string): Promise<Record<string, never>> {
    const { task } = await this.taskOf(scope, id);
    await this.tasks.stop({ caller: scope.caller, account: task.accountName, project: task.projectName, baseUrl }, task.id);
    return {};
  }
}
