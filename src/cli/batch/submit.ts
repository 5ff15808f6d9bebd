import type { Client } from '../../client/client.js';
import { GdApiError, GdConnectionError } from '../../client/errors.js';
import type { Task } from '../../client/types.js';
import type { LogEntry, LogWriter } from './log.js';
import type { PlannedRow } from './validate.js';

export interface SubmitResult {
  submitted: LogEntry[];
  failed: Array<{ plan: PlannedRow; error: Error }>;
  /** Set when the server stopped answering: the rows not tried yet were left alone. */
  unreachable?: GdConnectionError;
  elapsedSeconds: number;
}

/** Task names → tasks of the project, read once when a name turns out to be taken already. */
class TaskIndex {
  private byName: Promise<Map<string, Task>> | undefined;
  constructor(private readonly client: Client) {}
  find(name: string): Promise<Task | undefined> {
    this.byName ??= (async () => {
      const map = new Map<string, Task>();
      for (let cursor: string | undefined; ;) {
        const page = await this.client.listTasks({ size: 1000, ...(cursor ? { cursor } : {}) });
        for (const task of page.task_list) if (!map.has(task.task_name)) map.set(task.task_name, task);
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      return map;
    })();
    return this.byName.then((map) => map.get(name));
  }
}

/**
 * Submit one task per planned row, `concurrency` at a time, logging each as soon as the server
 * answers. A refused row does not stop the others; an unreachable server does (nothing more is
 * tried). A row whose task name is already taken by a task of the same workflow is a row whose
 * task was created before its log line was written (an interrupted run): that task is adopted.
 */
export async function submitAll(
  client: Client,
  plans: PlannedRow[],
  log: LogWriter,
  options: { concurrency: number; onDone?: (done: number) => void },
): Promise<SubmitResult> {
  const started = process.hrtime.bigint();
  const result: SubmitResult = { submitted: [], failed: [], elapsedSeconds: 0 };
  const index = new TaskIndex(client);
  let next = 0;
  let done = 0;

  const record = (plan: PlannedRow, task: { task_id: string; task_name: string }, adopted: boolean) => {
    const entry: LogEntry = {
      key: plan.key,
      row: plan.row.row,
      task_id: task.task_id,
      task_name: task.task_name,
      workflow_name: plan.request.workflow_name,
      submitted_at: new Date().toISOString(),
      ...(adopted ? { adopted } : {}),
    };
    log.append(entry);
    result.submitted.push(entry);
  };

  const worker = async () => {
    while (next < plans.length && !result.unreachable) {
      const plan = plans[next++]!;
      try {
        record(plan, await client.activateWorkflow(plan.request), false);
      } catch (error) {
        const name = plan.request.task_name;
        if (error instanceof GdApiError && error.status === 400 && name && /already used/.test(error.errorMessage)) {
          const existing = await index.find(name).catch(() => undefined);
          if (existing && existing.workflow_name === plan.request.workflow_name) record(plan, existing, true);
          else result.failed.push({ plan, error });
        } else if (error instanceof GdConnectionError) {
          result.unreachable ??= error;
          result.failed.push({ plan, error });
        } else {
          result.failed.push({ plan, error: error instanceof Error ? error : new Error(String(error)) });
        }
      }
      options.onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, plans.length) }, worker));
  result.elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  return result;
}
