import type { WesState } from '../../contract/ga4gh-states.js';
import { wesState } from '../ga4gh/states.js';
import type { Job, Task } from '../../store/store.js';
import { cwlPlanOf } from '../cwl/runs/plan.js';
import { dataPathOf, GDFLOW_SCHEME } from '../cwl/runs/locations.js';
import { pathToReference } from '../cwl/uri.js';
import { isObject, type JsonObject } from '../json.js';

/** How WES shows a gdflow task (docs/ga4gh.md, "WES"): its state, its RunRequest, its RunLog and its jobs as TaskLogs. */

const iso = (seconds: number | null): string | null => (seconds === null ? null : new Date(seconds * 1000).toISOString());

export function runState(task: Task, jobs: readonly Job[]): WesState {
  return wesState(task, jobs);
}

/** The RunRequest: as posted, for a run started through WES; made from the task for one started otherwise (ActivateWorkflow, RunCwl). */
export function runRequest(task: Task): JsonObject {
  const posted = task.parameters.wes;
  if (isObject(posted)) return posted;
  const cwl = cwlPlanOf(task.plan);
  const { description: _description, ...params } = task.parameters;
  return {
    workflow_params: cwl && isObject(task.parameters.job) ? task.parameters.job : params,
    workflow_type: cwl ? 'CWL' : 'GeneDock',
    workflow_type_version: cwl ? (typeof cwl.document.cwlVersion === 'string' ? cwl.document.cwlVersion : 'v1.2') : '1.0',
    tags: {},
    workflow_engine_parameters: {},
    // A CWL run posted to RunCwl names its process; an ActivateWorkflow, the workflow version as WES would name it.
    workflow_url: cwl ? task.workflowName : `workflow:${task.workflowName}/${task.workflowVersion}`,
  };
}

export const runTags = (task: Task): Record<string, string> => {
  const tags = isObject(task.parameters.wes) ? task.parameters.wes.tags : undefined;
  return isObject(tags) ? (tags as Record<string, string>) : {};
};

export function runSummary(task: Task, jobs: readonly Job[]): JsonObject {
  return { run_id: task.id, state: runState(task, jobs), start_time: iso(task.startedAt ?? task.createdAt), end_time: iso(task.endedAt), tags: runTags(task) };
}

export function runLog(task: Task, jobs: readonly Job[], tasksUrl: string, outputs: JsonObject | null): JsonObject {
  const state = runState(task, jobs);
  const ended = task.status === 'failed' || task.status === 'stopped';
  return {
    run_id: task.id,
    request: runRequest(task),
    state,
    run_log: {
      name: task.name,
      cmd: [],
      start_time: iso(task.startedAt ?? task.createdAt),
      end_time: iso(task.endedAt),
      stdout: null,
      stderr: null,
      exit_code: null,
      system_logs: ended ? [task.reason] : [],
    },
    task_logs_url: tasksUrl,
    task_logs: null,
    outputs,
  };
}

/** A job as a WES TaskLog; `log`: the signed link of its log, when it has one. */
export function taskLog(job: Job, log: string | undefined): JsonObject {
  const failed = job.status === 'failed' || job.status === 'cancelled';
  return {
    id: job.id,
    name: job.name,
    cmd: job.command === '' ? [] : [job.command],
    start_time: iso(job.startedAt),
    end_time: iso(job.endedAt),
    stdout: log === undefined ? null : `${log}&stream=stdout`,
    stderr: log === undefined ? null : `${log}&stream=stderr`,
    exit_code: job.exitCode,
    system_logs: failed ? [job.reason] : [],
    tes_uri: null,
  };
}

/** How outputs name their files: a URL of the data store the client reads with its credentials, and a host path for a client on this host. */
export interface OutputLinks {
  /** The data store's URL of the account (`https://host/accounts/<account>/data`). */
  dataUrl: string;
  /** The file's path on this host, for a client that shares the server's file system; undefined otherwise. */
  hostPath?: (path: string, cls: 'File' | 'Directory') => Promise<string | undefined>;
}

/**
 * An output object (Files and Directories at `gdflow:` locations) with each location made the data store's URL of the
 * item (a Directory's: the data list of its prefix), and, for a client on this host, `path` the file on disk.
 */
export async function outputUrls(value: unknown, links: OutputLinks): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((item) => outputUrls(item, links)));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) out[key] = await outputUrls(item, links);
  const location = value.location;
  if ((value.class !== 'File' && value.class !== 'Directory') || typeof location !== 'string' || !location.startsWith(GDFLOW_SCHEME)) return out;
  const path = dataPathOf(location);
  const directory = value.class === 'Directory';
  out.location = directory ? `${links.dataUrl}/?prefix=${encodeURIComponent(`${path}/`)}` : `${links.dataUrl}${pathToReference(path)}`;
  const host = links.hostPath ? await links.hostPath(path, value.class) : undefined;
  if (host === undefined) delete out.path;
  else out.path = host;
  return out;
}
