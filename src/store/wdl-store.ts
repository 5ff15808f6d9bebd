/**
 * WdlStore over Kysely (migration 0013), for SQLite and PostgreSQL alike. Reads that list versions never read the
 * documents themselves; wdlVersionFiles does, for the download links.
 */
import type { Kysely, Selectable } from 'kysely';
import { newId } from '../ids.js';
import { insertAudit } from './audit-log.js';
import type { SqlDialect } from './dialect.js';
import type { Database, WdlWorkflowVersionsTable } from './schema.js';
import { isUniqueViolation } from './sql-errors.js';
import { AlreadyExists, VersionConflict, type AuditEntry, type Json } from './store.js';
import type { WdlChange, WdlContent, WdlKind, WdlStore, WdlTaskLink, WdlVersion, WdlVersionFiles } from './wdl.js';

/** Runs `fn` in one transaction (retried on transient conflicts), as the store's other writes are. */
export type InTransaction = <T>(fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;

const MAX_VERSION = 2_147_483_647;
const now = (): number => Date.now() / 1000;

/** The columns of a version without its files. */
const SUMMARY = [
  'v.id as version_id',
  'v.workflow_id',
  'w.project_id',
  'w.kind',
  'w.name',
  'v.version',
  'v.description',
  'v.source_name',
  'v.dependencies_name',
  'v.inputs',
  'v.created_at',
  'v.modified_at',
] as const;

type SummaryRow = {
  version_id: string;
  workflow_id: string;
  project_id: string;
  kind: string;
  name: string;
  version: number;
  description: string;
  source_name: string;
  dependencies_name: string | null;
  inputs: string;
  created_at: number;
  modified_at: number;
};

function toVersion(row: SummaryRow): WdlVersion {
  return {
    versionId: row.version_id,
    workflowId: row.workflow_id,
    projectId: row.project_id,
    kind: row.kind === 'tool' ? 'tool' : 'workflow',
    name: row.name,
    version: row.version,
    description: row.description,
    sourceName: row.source_name,
    dependenciesName: row.dependencies_name,
    inputs: JSON.parse(row.inputs) as Json,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

/** The columns a version's content is written to (only those given, for a replacement). */
function contentColumns(content: Partial<WdlContent>): Partial<Selectable<WdlWorkflowVersionsTable>> {
  const columns: Partial<Selectable<WdlWorkflowVersionsTable>> = {};
  if (content.description !== undefined) columns.description = content.description;
  if (content.sourceName !== undefined) columns.source_name = content.sourceName;
  if (content.source !== undefined) columns.source = content.source;
  if (content.dependencies !== undefined) {
    columns.dependencies = content.dependencies === null ? null : content.dependencies.toString('base64');
    columns.dependencies_name = content.dependenciesName ?? null;
  }
  if (content.inputs !== undefined) columns.inputs = JSON.stringify(content.inputs);
  return columns;
}

export class KyselyWdlStore implements WdlStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly inTransaction: InTransaction,
  ) {}

  private versions(db: Kysely<Database> = this.db) {
    return db.selectFrom('wdl_workflow_versions as v').innerJoin('wdl_workflows as w', 'w.id', 'v.workflow_id').select(SUMMARY);
  }

  private async versionRow(db: Kysely<Database>, workflowId: string, version: number): Promise<WdlVersion | undefined> {
    const row = await this.versions(db).where('v.workflow_id', '=', workflowId).where('v.version', '=', version).executeTakeFirst();
    return row && toVersion(row);
  }

  private async insertVersion(trx: Kysely<Database>, workflowId: string, version: number, content: WdlContent, at: number): Promise<void> {
    await trx
      .insertInto('wdl_workflow_versions')
      .values({
        id: newId(),
        workflow_id: workflowId,
        version,
        description: content.description,
        source_name: content.sourceName,
        source: content.source,
        dependencies_name: content.dependencies === null ? null : content.dependenciesName,
        dependencies: content.dependencies === null ? null : content.dependencies.toString('base64'),
        inputs: JSON.stringify(content.inputs),
        created_at: at,
        modified_at: at,
      })
      .execute();
  }

  async createWdlWorkflow(projectId: string, kind: WdlKind, name: string, content: WdlContent, audit?: AuditEntry): Promise<WdlVersion> {
    const id = newId();
    try {
      return await this.inTransaction(async (trx) => {
        const at = now();
        await trx.insertInto('wdl_workflows').values({ id, project_id: projectId, kind, name, created_at: at }).execute();
        await this.insertVersion(trx, id, 1, content, at);
        if (audit) await insertAudit(trx, { ...audit, target: `${audit.target}:1` }, at);
        return (await this.versionRow(trx, id, 1))!;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExists(`WDL ${kind} '${name}'`);
      throw error;
    }
  }

  async changeWdlWorkflow(workflowId: string, change: WdlChange, audit?: AuditEntry): Promise<WdlVersion | undefined> {
    try {
      return await this.inTransaction(async (trx) => {
        const workflow = await trx.selectFrom('wdl_workflows').select(['id', 'project_id', 'kind']).where('id', '=', workflowId).executeTakeFirst();
        if (!workflow) return undefined;
        const at = now();
        if (change.name !== undefined) await trx.updateTable('wdl_workflows').set({ name: change.name }).where('id', '=', workflowId).execute();
        let version: number | undefined;
        if (change.replace) {
          version = change.replace.version;
          const result = await trx
            .updateTable('wdl_workflow_versions')
            .set({ ...contentColumns(change.replace.content), modified_at: at })
            .where('workflow_id', '=', workflowId)
            .where('version', '=', version)
            .executeTakeFirst();
          // Nothing to replace: the rename above is undone with the transaction.
          if (Number(result.numUpdatedRows) === 0) throw new VersionGone();
        }
        if (change.add) {
          // Adders of one workflow take turns (a lock on PostgreSQL, the write lock on SQLite), so max + 1 is free.
          await this.dialect.lockKey(trx, `gdflow:version:wdl:${workflowId}`);
          const { max } = await trx
            .selectFrom('wdl_workflow_versions')
            .select((eb) => eb.fn.max<number | null>('version').as('max'))
            .where('workflow_id', '=', workflowId)
            .executeTakeFirstOrThrow();
          const next = (max ?? 0) + 1;
          version = change.add.version === 'next' ? next : change.add.version;
          if (version > MAX_VERSION) throw new VersionConflict(next);
          if (change.add.version !== 'next' && (await this.versionRow(trx, workflowId, version))) throw new VersionConflict(next);
          await this.insertVersion(trx, workflowId, version, change.add.content, at);
        }
        if (audit) await insertAudit(trx, { ...audit, target: version === undefined ? audit.target : `${audit.target}:${version}` }, at);
        return version === undefined ? undefined : this.versionRow(trx, workflowId, version);
      });
    } catch (error) {
      if (error instanceof VersionGone) return undefined;
      if (isUniqueViolation(error)) throw new AlreadyExists(`WDL workflow '${change.name ?? workflowId}'`);
      throw error;
    }
  }

  async wdlVersions(workflowId: string): Promise<WdlVersion[]> {
    const rows = await this.versions().where('v.workflow_id', '=', workflowId).orderBy('v.version').execute();
    return rows.map(toVersion);
  }

  async wdlVersionsByName(projectId: string, kind: WdlKind, name: string): Promise<WdlVersion[]> {
    const rows = await this.versions()
      .where('w.project_id', '=', projectId)
      .where('w.kind', '=', kind)
      .where('w.name', '=', name)
      .orderBy('v.version')
      .execute();
    return rows.map(toVersion);
  }

  async wdlVersionFiles(versionId: string): Promise<WdlVersionFiles | undefined> {
    const row = await this.versions().select(['v.source', 'v.dependencies']).where('v.id', '=', versionId).executeTakeFirst();
    if (!row) return undefined;
    return { ...toVersion(row), source: row.source, dependencies: row.dependencies === null ? null : Buffer.from(row.dependencies, 'base64') };
  }

  async listWdlVersions(projectId: string, kind: WdlKind): Promise<WdlVersion[]> {
    const rows = await this.versions()
      .where('w.project_id', '=', projectId)
      .where('w.kind', '=', kind)
      .orderBy(this.dialect.byteOrder('w.name'))
      .orderBy('w.id')
      .orderBy('v.version')
      .execute();
    return rows.map(toVersion);
  }

  async deleteWdlVersion(workflowId: string, version: number, audit?: AuditEntry): Promise<boolean> {
    if (!Number.isSafeInteger(version) || version < 1 || version > MAX_VERSION) return false;
    return this.inTransaction(async (trx) => {
      const result = await trx.deleteFrom('wdl_workflow_versions').where('workflow_id', '=', workflowId).where('version', '=', version).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      const left = await trx.selectFrom('wdl_workflow_versions').select('id').where('workflow_id', '=', workflowId).limit(1).executeTakeFirst();
      if (!left) await trx.deleteFrom('wdl_workflows').where('id', '=', workflowId).execute();
      if (audit) await insertAudit(trx, audit, now());
      return true;
    });
  }

  async recordWdlTask(taskId: string, projectId: string, createdAt: number, link: WdlTaskLink): Promise<void> {
    await this.db
      .insertInto('wdl_tasks')
      .values({
        task_id: taskId,
        project_id: projectId,
        workflow_id: link.workflowId,
        version: link.version,
        source_id: link.sourceId,
        request: JSON.stringify(link.request),
        created_at: createdAt,
      })
      .onConflict((oc) => oc.column('task_id').doNothing())
      .execute();
  }

  async wdlTask(taskId: string): Promise<WdlTaskLink | undefined> {
    const row = await this.db
      .selectFrom('wdl_tasks')
      .select(['workflow_id', 'version', 'source_id', 'request'])
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return row && { workflowId: row.workflow_id, version: row.version, sourceId: row.source_id, request: JSON.parse(row.request) as Json };
  }

  async wdlSubTasks(projectId: string, sourceId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('wdl_tasks')
      .innerJoin('tasks', 'tasks.id', 'wdl_tasks.task_id')
      .select('wdl_tasks.task_id')
      .where('wdl_tasks.project_id', '=', projectId)
      .where('wdl_tasks.source_id', '=', sourceId)
      .where('tasks.delete_requested', '=', 0)
      .orderBy('wdl_tasks.created_at', 'desc')
      .orderBy('wdl_tasks.task_id', 'desc')
      .execute();
    return rows.map((r) => r.task_id);
  }
}

/** Thrown inside a change's transaction to undo it when the version to replace is gone. */
class VersionGone extends Error {}
