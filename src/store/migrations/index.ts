import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_accounts_tools_workflows.js';
import * as m0002 from './0002_tasks_jobs.js';
import * as m0003 from './0003_task_leases.js';
import * as m0004 from './0004_job_image_digest.js';
import * as m0005 from './0005_audit_log.js';
import * as m0006 from './0006_call_cache_attempts.js';
import * as m0007 from './0007_audit_client_address.js';
import * as m0008 from './0008_task_list_filters.js';
import * as m0009 from './0009_data_provenance.js';
import * as m0010 from './0010_job_outputs.js';
import * as m0011 from './0011_cwl_documents.js';
import * as m0012 from './0012_ga4gh.js';

/**
 * Numbered migrations, applied in order by Kysely's Migrator, which takes a lock so that two
 * servers starting at once do not both apply them, and refuses to run when the database holds
 * a migration this code does not know (old code on a newer schema).
 */
export const MIGRATIONS: Record<string, Migration> = {
  '0001_accounts_tools_workflows': m0001,
  '0002_tasks_jobs': m0002,
  '0003_task_leases': m0003,
  '0004_job_image_digest': m0004,
  '0005_audit_log': m0005,
  '0006_call_cache_attempts': m0006,
  '0007_audit_client_address': m0007,
  '0008_task_list_filters': m0008,
  '0009_data_provenance': m0009,
  '0010_job_outputs': m0010,
  '0011_cwl_documents': m0011,
  '0012_ga4gh': m0012,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};
