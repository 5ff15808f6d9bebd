import assert from 'node:assert/strict';
import { projectPath, type TestAccount } from './server.js';
import { download, upload } from './tasks.js';

/** What GET cwl/runs/<task>/ answers. */
export interface CwlRunView {
  task_id: string;
  task_name: string;
  status: string;
  outputs: Record<string, any> | null;
  reason: string | null;
}

/** POST cwl/runs/: a packed document, a job object, and optionally the process and the task's name. */
export async function runCwl(account: TestAccount, body: Record<string, unknown>): Promise<{ task_id: string; task_name: string }> {
  return account.api.json('POST', projectPath(account.name, 'cwl/runs/'), { json: body });
}

export async function getCwlRun(account: TestAccount, taskId: string): Promise<CwlRunView> {
  return account.api.json('GET', projectPath(account.name, `cwl/runs/${taskId}/`));
}

/** Poll GET cwl/runs/<task>/ until the run has ended. */
export async function waitForCwlRun(account: TestAccount, taskId: string, timeoutMs = 90_000): Promise<CwlRunView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await getCwlRun(account, taskId);
    if (['succeeded', 'failed', 'stopped'].includes(run.status)) return run;
    if (Date.now() > deadline) assert.fail(`CWL run ${taskId} is still ${run.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Upload a file to the data store and give it as a CWL File whose location is gdflow:<path>. */
export async function uploadFile(account: TestAccount, path: string, content: string): Promise<{ class: 'File'; location: string }> {
  await upload(account, path, content);
  return { class: 'File', location: `gdflow:${path.slice(1)}` };
}

/** The text of an output File (or Directory entry) through the data routes, from its gdflow: location (percent-encoded). */
export async function readOutput(account: TestAccount, file: { location: string }): Promise<string> {
  assert.match(file.location, /^gdflow:/);
  return download(account, `/${file.location.slice('gdflow:'.length).split('/').map(decodeURIComponent).join('/')}`);
}

/** The jobs of a task, by node id. */
export async function jobsOf(account: TestAccount, taskId: string): Promise<Map<string, any>> {
  const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`));
  return new Map(jobs.map((job: any) => [job.node_id, job]));
}

/**
 * A scatter step: `baseCommand` run once per element of the workflow input `words` (string[]), the word its last
 * argument, its stdout each instance's `said.txt` (output `out`). Its workflow needs ScatterFeatureRequirement.
 */
export function sayEachWord(baseCommand: string | string[]) {
  return {
    run: {
      class: 'CommandLineTool',
      baseCommand,
      inputs: { word: { type: 'string', inputBinding: {} } },
      stdout: 'said.txt',
      outputs: { out: 'stdout' },
    },
    scatter: 'word',
    in: { word: 'words' },
    out: ['out'],
  };
}
