import type { Kysely } from 'kysely';

// The container executors (podman, docker) run a job in its tool's image, resolved to a digest when the job
// starts: the digest is kept on the job, for provenance (job info shows it) and for call caching later. Null for
// jobs that ran in no image, and for every job before this migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // sha256:<64 hex> is 71 characters; room for other algorithms.
  await db.schema.alterTable('jobs').addColumn('image_digest', 'varchar(160)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('image_digest').execute();
}
