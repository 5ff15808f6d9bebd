/**
 * The half of the Kysely store that the read cache fronts besides accounts (account-store.ts): tools and workflows,
 * versioned. KyselyStore (kysely-store.ts) adds tasks and jobs on top.
 */
import type { Kysely } from 'kysely';
import { newId } from '../ids.js';
import { insertAudit } from './audit-log.js';
import { now, toTool, toWorkflow } from './definition-rows.js';
import type { Database } from './schema.js';
import { isForeignKeyViolation, isUniqueViolation } from './sql-errors.js';
import {
  InUse,
  VersionConflict,
  type AuditEntry,
  type Json,
  type NewVersion,
  type Tool,
  type ToolUpdate,
  type WorkflowUpdate,
  type Workflow,
} from './store.js';
import { stringifyExactJson } from '../contract/exact-json.js';
import { AccountStore } from './account-store.js';

/**
 * Versions live in an integer column: a larger one cannot exist, and PostgreSQL refuses to compare
 * the column with a number out of its range rather than finding nothing.
 */
const MAX_VERSION = 2_147_483_647;
const possibleVersion = (version: number): boolean => Number.isSafeInteger(version) && version >= 1 && version <= MAX_VERSION;

export abstract class DefinitionStore extends AccountStore {
  // ---- tools --------------------------------------------------------------------------------

  private toolQuery() {
    return this.db
      .selectFrom('tools')
      .innerJoin('projects', 'projects.id', 'tools.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .selectAll('tools')
      .select(['accounts.name as account_name', 'projects.name as project_name']);
  }

  /**
   * Insert the next version of a tool or workflow name: max(version) + 1. Creators of one name take
   * turns (a lock on the name on PostgreSQL; the write lock on SQLite), so each reads the version its
   * predecessor committed and versions stay unique and gap-free however many replicas create at
   * once. The unique key stays the last guard: a violation is retried from the start.
   */
  private async createVersion(table: 'tools' | 'workflows', input: NewVersion, columns: Record<string, string | null>, audit?: AuditEntry): Promise<string> {
    return this.changing(async (trx) => {
      await this.dialect.lockKey(trx, `gdflow:version:${table}:${input.projectId}:${input.name}`);
      const { max } = await trx
        .selectFrom(table as 'tools')
        .select((eb) => eb.fn.max<number | null>('version').as('max'))
        .where('project_id', '=', input.projectId)
        .where('name', '=', input.name)
        .executeTakeFirstOrThrow();
      const version = (max ?? 0) + 1;
      if (input.expectedVersion !== undefined && input.expectedVersion !== version) throw new VersionConflict(version);
      const id = newId();
      const at = now();
      await trx
        .insertInto(table as 'tools')
        .values({
          id,
          project_id: input.projectId,
          name: input.name,
          version,
          description: input.description,
          status: 'unchecked',
          visibility: input.visibility,
          created_at: at,
          modified_at: at,
          ...(columns as { category: string; configs: null }),
        })
        .execute();
      // The version is known only here: the entry names it.
      if (audit) await insertAudit(trx, { ...audit, target: `${audit.target}:${version}` }, at);
      return id;
    }, isUniqueViolation);
  }

  async createTool(input: NewVersion, audit?: AuditEntry): Promise<Tool> {
    const id = await this.createVersion('tools', input, { category: '', configs: null }, audit);
    return (await this.getToolById(id))!;
  }

  async putTool(id: string, update: ToolUpdate, options: { refuseIfPinned?: boolean } = {}, audit?: AuditEntry): Promise<void> {
    await this.changing(
      async (trx) => {
        if (options.refuseIfPinned) {
          // The check and the write are atomic against a concurrent PutWorkflow: it locks the tools it
          // pins FOR SHARE before inserting the pins, so either it waits for this transaction, or this
          // lock waits for it and the check below (a new statement, a new snapshot) sees its pins.
          await this.dialect.lockRows(trx.selectFrom('tools').select('id').where('id', '=', id), 'update').execute();
          const users = await this.usersOf(trx, id);
          if (users.length > 0) throw new InUse(users);
        }
        await trx
          .updateTable('tools')
          .set({
            ...(update.description !== undefined ? { description: update.description } : {}),
            configs: stringifyExactJson(update.configs),
            ...(update.cwl !== undefined ? { cwl: stringifyExactJson(update.cwl) } : {}),
            category: update.category,
            status: update.status,
            modified_at: now(),
          })
          .where('id', '=', id)
          .execute();
      },
      undefined,
      audit,
    );
  }

  async getTool(projectId: string, name: string, version: number): Promise<Tool | undefined> {
    if (!possibleVersion(version)) return undefined;
    const row = await this.toolQuery()
      .where('tools.project_id', '=', projectId)
      .where('tools.name', '=', name)
      .where('tools.version', '=', version)
      .executeTakeFirst();
    return row && toTool(row);
  }

  async getToolById(id: string): Promise<Tool | undefined> {
    const row = await this.toolQuery().where('tools.id', '=', id).executeTakeFirst();
    return row && toTool(row);
  }

  async getToolVersions(projectId: string, name: string): Promise<Tool[]> {
    const rows = await this.toolQuery().where('tools.project_id', '=', projectId).where('tools.name', '=', name).orderBy('tools.version').execute();
    return rows.map(toTool);
  }

  async listTools(projectId: string): Promise<Tool[]> {
    const rows = await this.toolQuery()
      .where('tools.project_id', '=', projectId)
      .orderBy(this.dialect.byteOrder('tools.name'))
      .orderBy('tools.version')
      .execute();
    return rows.map(toTool);
  }

  async deleteTool(id: string, audit?: AuditEntry): Promise<void> {
    try {
      await this.changing((trx) => trx.deleteFrom('tools').where('id', '=', id).execute(), undefined, audit);
    } catch (error) {
      // The foreign key of workflow_tools refuses the delete even when a PutWorkflow pinned the
      // tool between the domain's check and this statement.
      if (isForeignKeyViolation(error)) throw new InUse(await this.workflowsUsingTool(id));
      throw error;
    }
  }

  // ---- workflows ------------------------------------------------------------------------------

  private workflowQuery() {
    return this.db
      .selectFrom('workflows')
      .innerJoin('projects', 'projects.id', 'workflows.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .selectAll('workflows')
      .select(['accounts.name as account_name', 'projects.name as project_name']);
  }

  async createWorkflow(input: NewVersion, audit?: AuditEntry): Promise<Workflow> {
    const id = await this.createVersion('workflows', input, { configs: null, run_template: null }, audit);
    return (await this.getWorkflowById(id))!;
  }

  async putWorkflow(id: string, update: WorkflowUpdate, audit?: AuditEntry): Promise<void> {
    await this.changing(
      async (trx) => {
        await trx
          .updateTable('workflows')
          .set({
            ...(update.description !== undefined ? { description: update.description } : {}),
            configs: stringifyExactJson(update.configs),
            ...(update.cwl !== undefined ? { cwl: stringifyExactJson(update.cwl) } : {}),
            status: update.status,
            // A new configuration invalidates saved run defaults, which were keyed by its nodes.
            run_template: null,
            modified_at: now(),
          })
          .where('id', '=', id)
          .execute();
        await trx.deleteFrom('workflow_tools').where('workflow_id', '=', id).execute();
        const toolIds = [...new Set(update.toolIds)].sort();
        if (toolIds.length > 0) {
          // Hold the pinned tool versions unchanged until the pins are committed (see putTool).
          await this.dialect.lockRows(trx.selectFrom('tools').select('id').where('id', 'in', toolIds).orderBy('id'), 'share').execute();
          await trx
            .insertInto('workflow_tools')
            .values(toolIds.map((toolId) => ({ workflow_id: id, tool_id: toolId })))
            .execute();
        }
      },
      undefined,
      audit,
    );
  }

  async setRunTemplate(id: string, template: Json, audit?: AuditEntry): Promise<void> {
    await this.changing(
      (trx) =>
        trx
          .updateTable('workflows')
          .set({ run_template: stringifyExactJson(template), modified_at: now() })
          .where('id', '=', id)
          .execute(),
      undefined,
      audit,
    );
  }

  async getWorkflow(projectId: string, name: string, version: number): Promise<Workflow | undefined> {
    if (!possibleVersion(version)) return undefined;
    const row = await this.workflowQuery()
      .where('workflows.project_id', '=', projectId)
      .where('workflows.name', '=', name)
      .where('workflows.version', '=', version)
      .executeTakeFirst();
    return row && toWorkflow(row);
  }

  async getWorkflowById(id: string): Promise<Workflow | undefined> {
    const row = await this.workflowQuery().where('workflows.id', '=', id).executeTakeFirst();
    return row && toWorkflow(row);
  }

  async getWorkflowVersions(projectId: string, name: string): Promise<Workflow[]> {
    const rows = await this.workflowQuery()
      .where('workflows.project_id', '=', projectId)
      .where('workflows.name', '=', name)
      .orderBy('workflows.version')
      .execute();
    return rows.map(toWorkflow);
  }

  async listWorkflows(projectId: string): Promise<Workflow[]> {
    const rows = await this.workflowQuery()
      .where('workflows.project_id', '=', projectId)
      .orderBy(this.dialect.byteOrder('workflows.name'))
      .orderBy('workflows.version')
      .execute();
    return rows.map(toWorkflow);
  }

  workflowsUsingTool(toolId: string): Promise<string[]> {
    return this.usersOf(this.db, toolId);
  }

  /** `account/project/workflow:version` of every workflow version pinning the tool, as `db` sees them. */
  private async usersOf(db: Kysely<Database>, toolId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('workflow_tools')
      .innerJoin('workflows', 'workflows.id', 'workflow_tools.workflow_id')
      .innerJoin('projects', 'projects.id', 'workflows.project_id')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .select(['accounts.name as account_name', 'projects.name as project_name', 'workflows.name', 'workflows.version'])
      .where('workflow_tools.tool_id', '=', toolId)
      .orderBy(this.dialect.byteOrder('workflows.name'))
      .orderBy('workflows.version')
      .execute();
    return rows.map((r) => `${r.account_name}/${r.project_name}/${r.name}:${r.version}`);
  }

  async deleteWorkflow(id: string, audit?: AuditEntry): Promise<void> {
    await this.changing(
      async (trx) => {
        await trx.deleteFrom('workflow_tools').where('workflow_id', '=', id).execute();
        await trx.deleteFrom('workflows').where('id', '=', id).execute();
      },
      undefined,
      audit,
    );
  }
}
