/** Reading a task list's query: its bounds, its state filter and its keyset cursor (TaskService.list). */
import type { Task } from '../../store/store.js';
import { TASK_STATUSES } from '../../contract/states.js';
import { invalid } from '../errors.js';
import type { TaskStatus } from './states.js';

export const MAX_LIST = 1000;

/**
 * How many tasks a filtered list (by state or by name) counts at most: a count reads every task it counts, so an
 * open-ended one grows with the project (45,000 succeeded tasks cost what the whole list does), where a capped one
 * costs what a page does. The list without filters, the one GeneDock's clients read `total` of, is counted in full.
 */
export const FILTERED_COUNT_LIMIT = 1000;

/** A time bound of a task list: the route's schema read it as a number; its range is checked here. */
export function wholeSeconds(value: number | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (value >= 0 && value < 1e12) return Math.floor(value);
  throw invalid(`${field} must be unix seconds, not number ${value}`);
}

/** The keyset cursor of a task list page: where the next page starts (the last task's creation time and id). */
export function encodeCursor(task: Task): string {
  return Buffer.from(JSON.stringify([task.createdAt, task.id])).toString('base64url');
}

const isTaskStatus = (state: string): state is TaskStatus => (TASK_STATUSES as readonly string[]).includes(state);

/** The `status` filter of a task list: one state or several, separated by commas. */
export function taskStatuses(value: string): TaskStatus[] {
  const states = value.split(',').map((s) => s.trim());
  return states.map((state) => {
    if (!isTaskStatus(state)) throw invalid(`status '${state.slice(0, 64)}' is not a task state (${TASK_STATUSES.join(', ')})`);
    return state;
  });
}

export function decodeCursor(value: string): { createdAt: number; id: string } {
  const refuse = () => invalid('cursor must be the next_cursor of an earlier page of this list');
  if (value.length > 200) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) throw refuse();
  const [createdAt, id] = decoded as [unknown, unknown];
  if (typeof createdAt !== 'number' || !Number.isFinite(createdAt) || typeof id !== 'string' || !/^[0-9a-f]{24}$/.test(id)) throw refuse();
  return { createdAt, id };
}
