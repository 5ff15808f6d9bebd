import { inspect } from 'node:util';
import { Migrator, type Kysely } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** Apply every pending migration; safe to run twice and from two processes at once. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableName: 'gdflow_migrations', migrationLockTableName: 'gdflow_migrations_lock' });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // Kysely passes on whatever a migration threw: an Error's message, anything else as Node shows it.
    const detail = error instanceof Error ? error.message : inspect(error);
    throw new MigrationError(failed ? `migration ${failed} failed: ${detail}` : `cannot migrate the database: ${detail}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
