import type { Kysely } from 'kysely';

// Job outputs as values (docs/tasks.md, "Deferred jobs"): a job whose work is decided at run time (a CWL step) ends
// with an output object, JSON whose Files are objects with a host location under the data root; the jobs after it
// read it from here. Null for jobs that have none (GeneDock tool, load and store jobs, and every job before this
// migration).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('outputs', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('outputs').execute();
}
