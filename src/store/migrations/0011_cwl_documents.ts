import type { Kysely } from 'kysely';

// Tools and workflows imported from CWL (docs/cwl.md, "Import"): each version keeps the CWL document it was made from,
// packed (every file it ran, imported and included inlined) and with the process it stands for, as JSON
// `{document, process}`. The GeneDock definition in `configs` is a view of it; the document is what runs and what
// `gdflow cwl export` gives back, so that nothing CWL says is lost. Null for versions written in GeneDock's format.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tools').addColumn('cwl', 'text').execute();
  await db.schema.alterTable('workflows').addColumn('cwl', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workflows').dropColumn('cwl').execute();
  await db.schema.alterTable('tools').dropColumn('cwl').execute();
}
