import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { Database } from './schema.js';
import type { JobPatch, JobStatus, StateChanges } from './store.js';
import { stringifyExactJson } from '../contract/exact-json.js';

/**
 * Write the job changes of one scheduling pass with a fixed number of statements, however many jobs it touched:
 * read (and lock) their rows at once, apply the changes in memory in their order (a change whose `expect` does not
 * hold is skipped, as if it were a compare-and-set of its own), then one UPDATE per shape of change and one INSERT
 * of all status transitions. A worker's pass writes dozens of changes; one round trip per change, three statements
 * each, made PostgreSQL (a round trip away, unlike SQLite) the engine's bottleneck.
 */

type JobChange = NonNullable<StateChanges['jobs']>[number];

/**
 * How a patch member is stored: its column, the SQL type its value is cast to (VALUES rows carry no types), and
 * for a document, that it is stored as JSON text.
 */
const COLUMNS: Record<keyof JobPatch, { column: string; type: 'text' | 'integer' | 'double precision'; json?: true }> = {
  status: { column: 'status', type: 'text' },
  reason: { column: 'reason', type: 'text' },
  attempt: { column: 'attempt', type: 'integer' },
  exitCode: { column: 'exit_code', type: 'integer' },
  startedAt: { column: 'started_at', type: 'double precision' },
  endedAt: { column: 'ended_at', type: 'double precision' },
  command: { column: 'command', type: 'text' },
  externalId: { column: 'external_id', type: 'text' },
  imageDigest: { column: 'image_digest', type: 'text' },
  cpu: { column: 'cpu', type: 'integer' },
  memMb: { column: 'mem_mb', type: 'integer' },
  attempts: { column: 'attempts', type: 'text', json: true },
  cacheKey: { column: 'cache_key', type: 'text' },
  cacheParts: { column: 'cache_parts', type: 'text', json: true },
  cachedFrom: { column: 'cached_from', type: 'text' },
  cacheLookup: { column: 'cache_lookup', type: 'text' },
  outputStamps: { column: 'output_stamps', type: 'text', json: true },
  outputs: { column: 'outputs', type: 'text', json: true },
  spec: { column: 'spec', type: 'text', json: true },
};

/** A patch's members as column values (documents as JSON text; null stays null). */
export function jobPatchColumns(patch: JobPatch): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch) as Array<[keyof JobPatch, unknown]>) {
    if (value === undefined) continue;
    const { column, json } = COLUMNS[key];
    values[column] = json && value !== null ? stringifyExactJson(value) : value;
  }
  return values;
}

/** Rows per statement: well under SQLite's limit of bound parameters. */
const CHUNK = 200;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function writeJobChanges(trx: Kysely<Database>, dialect: SqlDialect, changes: JobChange[], at: number): Promise<void> {
  if (changes.length === 0) return;
  const ids = [...new Set(changes.map((c) => c.id))].sort();
  const current = new Map<string, { status: JobStatus; taskId: string }>();
  for (const part of chunks(ids)) {
    // Locked in id order, so that two writers touching the same jobs cannot deadlock.
    const rows = await dialect.lockRows(trx.selectFrom('jobs').select(['id', 'status', 'task_id']).where('id', 'in', part).orderBy('id'), 'update').execute();
    for (const row of rows) current.set(row.id, { status: row.status as JobStatus, taskId: row.task_id });
  }

  const merged = new Map<string, JobPatch>();
  const events: Array<{ task_id: string; job_id: string; from_status: string; to_status: string; reason: string; at: number }> = [];
  for (const { id, patch, expect } of changes) {
    const row = current.get(id);
    if (!row || (expect && !expect.includes(row.status))) continue;
    if (patch.status !== undefined && patch.status !== row.status) {
      events.push({ task_id: row.taskId, job_id: id, from_status: row.status, to_status: patch.status, reason: patch.reason ?? '', at });
    }
    if (patch.status !== undefined) row.status = patch.status;
    const into = merged.get(id) ?? {};
    for (const [key, value] of Object.entries(patch) as Array<[keyof JobPatch, unknown]>) if (value !== undefined) Object.assign(into, { [key]: value });
    merged.set(id, into);
  }

  // One UPDATE per set of changed members (a pass has a handful: starts, ends, requeues).
  const shapes = new Map<string, Array<[string, JobPatch]>>();
  for (const entry of merged) {
    const key = Object.keys(entry[1]).sort().join(',');
    shapes.set(key, [...(shapes.get(key) ?? []), entry]);
  }
  for (const [key, rows] of shapes) {
    const members = (key === '' ? [] : key.split(',')) as Array<keyof JobPatch>;
    for (const part of chunks(rows)) {
      const cast = (value: unknown, type: string): RawBuilder<unknown> => sql`cast(${value ?? null} as ${sql.raw(type)})`;
      const values = part.map(([id, patch]) => {
        const columns = jobPatchColumns(patch);
        return sql`(${sql.join([sql`${id}`, ...members.map((m) => cast(columns[COLUMNS[m].column], COLUMNS[m].type))])})`;
      });
      const names = sql.raw(['id', ...members.map((m) => COLUMNS[m].column)].join(', '));
      const sets = sql.join([...members.map((m) => sql.raw(`${COLUMNS[m].column} = v.${COLUMNS[m].column}`)), sql`modified_at = ${at}`]);
      await sql`with v (${names}) as (values ${sql.join(values)}) update jobs set ${sets} from v where jobs.id = v.id`.execute(trx);
    }
  }
  for (const part of chunks(events)) await trx.insertInto('task_events').values(part).execute();
}
