import { sql, type Kysely } from 'kysely';
import { LocalWorkEvents } from './local-events.js';
import type { PgListener } from './pg-listener.js';
import type { Database } from './schema.js';
import type { WorkEvent, WorkEvents } from './store.js';

export const WORK_CHANNEL = 'gdflow_work';

/**
 * Wake-ups for every process on the database: a published event is NOTIFYed on WORK_CHANNEL (after the write it
 * announces has committed: publishers call publish after their transaction) and handed to this process's listeners
 * at once; the other processes hear it through their listening session. A process may hear its own events twice
 * (directly and through the database): what workers do on an event is idempotent.
 */
export class PgWorkEvents implements WorkEvents {
  readonly crossProcess = true;
  private readonly local = new LocalWorkEvents();

  constructor(
    private readonly db: Kysely<Database>,
    /** Without one (options.listen false) this process hears only its own events. */
    listener: PgListener | undefined,
  ) {
    listener?.on(WORK_CHANNEL, (payload) => {
      const event = parseEvent(payload);
      if (event) this.local.deliver(event);
    });
  }

  async publish(event: WorkEvent): Promise<void> {
    this.local.deliver(event);
    try {
      await sql`select pg_notify(${WORK_CHANNEL}, ${JSON.stringify(event)})`.execute(this.db);
    } catch {
      // Only a shortcut: workers find the work at their next poll.
    }
  }

  subscribe(listener: (event: WorkEvent) => void): () => void {
    return this.local.subscribe(listener);
  }
}

function parseEvent(payload: string): WorkEvent | undefined {
  try {
    const value = JSON.parse(payload) as Partial<WorkEvent>;
    if ((value.kind === 'task' || value.kind === 'stop' || value.kind === 'delete') && typeof value.taskId === 'string')
      return { kind: value.kind, taskId: value.taskId };
  } catch {
    // not ours
  }
  return undefined;
}
