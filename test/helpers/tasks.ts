import assert from 'node:assert/strict';
import type { TestAccount } from './server.js';
import { projectPath } from './server.js';

export const TERMINAL = ['succeeded', 'failed', 'stopped'];

/** Poll a task until it reaches one of `states` (default: an end state). */
export async function waitForTask(account: TestAccount, taskId: string, options: { states?: string[]; timeoutMs?: number } = {}): Promise<any> {
  const states = options.states ?? TERMINAL;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const task = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/`));
    if (states.includes(task.status)) return task;
    if (Date.now() > deadline) assert.fail(`task ${taskId} is still ${task.status} (${task.reason}) after ${options.timeoutMs ?? 60_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Poll until a job of the task with this node id has reached `status`. */
export async function waitForJob(account: TestAccount, taskId: string, nodeId: string, status: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { jobs } = await account.api.json<any>('GET', projectPath(account.name, `tasks/${taskId}/jobs/`));
    const job = jobs.find((j: any) => j.node_id === nodeId);
    if (job?.status === status) return job;
    if (Date.now() > deadline) assert.fail(`job ${nodeId} is ${job?.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function upload(account: TestAccount, path: string, content: string | Buffer, owner = account.name): Promise<any> {
  return account.api.json('PUT', `/accounts/${owner}/data${path.split('/').map(encodeURIComponent).join('/')}`, {
    body: Buffer.from(content),
    contentType: 'application/octet-stream',
  });
}

export async function download(account: TestAccount, path: string, owner = account.name): Promise<string> {
  const response = await account.api.send('GET', `/accounts/${owner}/data${path.split('/').map(encodeURIComponent).join('/')}`);
  return response.text();
}

export async function activate(account: TestAccount, body: Record<string, unknown>): Promise<{ task_id: string; task_name: string }> {
  return account.api.json('POST', projectPath(account.name, 'tasks/'), { json: body });
}
