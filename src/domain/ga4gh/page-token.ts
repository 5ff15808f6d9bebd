import type { Task } from '../../store/store.js';
import { invalid } from '../errors.js';

/**
 * The page tokens of the GA4GH lists (TES tasks, WES runs): the creation time and id of the last task of a page, as
 * base64url JSON, where the next page starts (the store's keyset cursor: as fast for the oldest page as the newest).
 */
export function encodePageToken(task: Pick<Task, 'createdAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([task.createdAt, task.id])).toString('base64url');
}

export function decodePageToken(value: string): { createdAt: number; id: string } {
  const refuse = () => invalid('page_token must be the next_page_token of an earlier page of this list');
  if (value.length > 200) throw refuse();
  try {
    const decoded: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (
      Array.isArray(decoded) &&
      decoded.length === 2 &&
      typeof decoded[0] === 'number' &&
      typeof decoded[1] === 'string' &&
      /^[0-9a-f]{24}$/.test(decoded[1])
    ) {
      return { createdAt: decoded[0], id: decoded[1] };
    }
  } catch {
    // refused below
  }
  throw refuse();
}
