import type { Client } from '../../client/client.js';
import { GdApiError } from '../../client/errors.js';
import { isTerminalTask, type Task } from '../../client/types.js';
import { note } from '../output.js';
import { progressBar, progressEnabled } from '../progress.js';
import type { LogEntry } from './log.js';

export interface Followed {
  entry: LogEntry;
  /** The last state read; undefined when the task no longer exists. */
  task: Task | undefined;
  status: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Run `fn` over `items`, `concurrency` at a time. */
async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/**
 * Follow every task of a batch until all have ended: a bar of tasks ended / total with the
 * counts per state on a terminal, a line per change otherwise. Ended tasks are not polled again.
 */
export async function followAll(
  client: Client,
  entries: LogEntry[],
  options: { intervalMs: number; concurrency: number; quiet?: boolean },
): Promise<Followed[]> {
  const state = new Map<string, Followed>(entries.map((entry) => [entry.task_id, { entry, task: undefined, status: 'unknown' }]));
  const live = !options.quiet && progressEnabled();
  const bar = live ? progressBar(entries.length, 'tasks [{bar}] {value}/{total} ended | {summary}', { enabled: true, payload: { summary: '' } }) : undefined;
  let last = '';
  try {
    for (;;) {
      const pending = [...state.values()].filter((f) => !isTerminalTask(f.status) && f.status !== 'deleted');
      await pool(pending, options.concurrency, async (followed) => {
        try {
          followed.task = await client.getTask(followed.entry.task_id);
          followed.status = followed.task.status;
        } catch (error) {
          if (error instanceof GdApiError && error.status === 404) followed.status = 'deleted';
          else throw error;
        }
      });
      const counts = new Map<string, number>();
      for (const f of state.values()) counts.set(f.status, (counts.get(f.status) ?? 0) + 1);
      const summary = [...counts.entries()]
        .sort()
        .map(([s, n]) => `${n} ${s}`)
        .join(', ');
      const ended = [...state.values()].filter((f) => isTerminalTask(f.status) || f.status === 'deleted').length;
      bar?.update(ended, { summary });
      if (!live && !options.quiet && summary !== last) note(`${new Date().toTimeString().slice(0, 8)} ${ended}/${state.size} tasks ended: ${summary}`);
      last = summary;
      if (ended === state.size) break;
      await sleep(options.intervalMs);
    }
  } finally {
    bar?.stop();
  }
  return [...state.values()];
}
