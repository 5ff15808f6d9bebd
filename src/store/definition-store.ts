/**
 * The half of the Kysely store that the read cache fronts: accounts, projects, access keys, tools,
 * workflows and settings, plus the transaction plumbing both halves share. KyselyStore
 * (kysely-store.ts) adds tasks and jobs on top.
 */
import type { Kysely, Transaction } from 'kysely';
import { newId } from '../ids.js';
import { insertAudit } from './audit-log.js';
import { bumpCacheGeneration } from './cache-generation.js';
import { now, toKey, toProject, toToken, toTool, toWorkflow } from './definition-rows.js';
import { DIALECTS, type SqlDialect } from './dialect.js';
import type { KyselyStoreOptions } from './kysely-options.js';
import type { Database } from './schema.js';
import { isForeignKeyViolation, isTransientConflict, isUniqueViolation } from './sql-errors.js';
import {
  AlreadyExists,
  InUse,
  VersionConflict,
  type AccessKey,
  type AccessToken,
  type Account,
  type AuditEntry,
  type Json,
  type NewAccessToken,
  type NewVersion,
  type Project,
  type StoreCapabilities,
  type Tool,
  type ToolUpdate,
  type WorkflowUpdate,
  type Workflow,
} from './store.js';
import { stringifyExactJson } from '../contract/exact-json.js';

/** How many times a transaction is retried when it lost a race to a concurrent writer. */
const RETRIES = 20;

/**
 * Versions live in an integer column: a larger one cannot exist, and PostgreSQL refuses to compare
 * the column with a number out of its range rather than finding nothing.
 */
const MAX_VERSION = 2_147_483_647;
const possibleVersion = (version: number): boolean => Number.isSafeInteger(version) && version >= 1 && version <= MAX_VERSION;

/** What a transaction has done that must be announced when it commits. */
export interface TransactionState {
  /** Something the read cache holds changed: bump the cache generation before committing. */
  cacheChanged: boolean;
}

/** `fn` followed by the audit entry that records it, in the same transaction (nothing more without an entry). */
export function withAudit<T>(fn: (trx: Kysely<Database>) => Promise<T>, audit: AuditEntry | undefined): (trx: Kysely<Database>) => Promise<T> {
  if (!audit) return fn;
  return async (trx) => {
    const result = await fn(trx);
    await insertAudit(trx, audit, now());
    return result;
  };
}

export abstract class DefinitionStore {
  protected readonly dialect: SqlDialect;

  constructor(
    protected readonly db: Kysely<Database>,
    readonly capabilities: StoreCapabilities,
    protected readonly options: KyselyStoreOptions = {},
    /** Set when this store runs inside a transaction (see KyselyStore.transaction). */
    protected readonly txState?: TransactionState,
  ) {
    this.dialect = DIALECTS[capabilities.dialect];
  }

  protected get inTransaction(): boolean {
    return this.txState !== undefined;
  }

  /** Run `fn` in a transaction, again from the start when it loses a race to another writer. */
  protected async retrying<T>(fn: (trx: Kysely<Database>) => Promise<T>, isRace: (e: unknown) => boolean, relaxed = false): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        if (this.inTransaction) return await fn(this.db);
        if (relaxed && this.options.relaxedTransaction) return await this.options.relaxedTransaction(this.db, fn);
        return await this.db.transaction().execute((trx: Transaction<Database>) => fn(trx));
      } catch (error) {
        if (this.inTransaction || attempt >= RETRIES || !(isRace(error) || isTransientConflict(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
      }
    }
  }

  /**
   * A write to something the read cache holds: in a transaction that also bumps the cache
   * generation, so that other processes drop their copies (cache-generation.ts). Inside an
   * enclosing transaction the bump is left to its end.
   */
  protected changing<T>(fn: (trx: Kysely<Database>) => Promise<T>, isRace: (e: unknown) => boolean = () => false, audit?: AuditEntry): Promise<T> {
    const write = withAudit(fn, audit);
    if (this.txState) {
      this.txState.cacheChanged = true;
      return write(this.db);
    }
    return this.retrying(async (trx) => {
      const result = await write(trx);
      await bumpCacheGeneration(trx, this.dialect);
      return result;
    }, isRace);
  }

  // ---- accounts, projects, keys ------------------------------------------------------------

  async createAccount(name: string): Promise<Account> {
    const account: Account = { id: newId(), name, createdAt: now() };
    try {
      await this.changing((trx) => trx.insertInto('accounts').values({ id: account.id, name, created_at: account.createdAt }).execute());
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExists(`account '${name}'`);
      throw error;
    }
    return account;
  }

  async getAccount(name: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
    return row && { id: row.id, name: row.name, createdAt: row.created_at };
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy(this.dialect.byteOrder('name')).execute();
    return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at }));
  }

  private projectQuery() {
    return this.db
      .selectFrom('projects')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .select(['projects.id', 'projects.account_id', 'projects.name', 'projects.created_at', 'accounts.name as account_name']);
  }

  async createProject(accountId: string, name: string, audit?: AuditEntry): Promise<Project> {
    const id = newId();
    try {
      await this.changing((trx) => trx.insertInto('projects').values({ id, account_id: accountId, name, created_at: now() }).execute(), undefined, audit);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyExists(`project '${name}'`);
      throw error;
    }
    return toProject(await this.projectQuery().where('projects.id', '=', id).executeTakeFirstOrThrow());
  }

  async getProject(accountName: string, projectName: string): Promise<Project | undefined> {
    const row = await this.projectQuery().where('accounts.name', '=', accountName).where('projects.name', '=', projectName).executeTakeFirst();
    return row && toProject(row);
  }

  async listProjects(accountId: string): Promise<Project[]> {
    const rows = await this.projectQuery().where('projects.account_id', '=', accountId).orderBy(this.dialect.byteOrder('projects.name')).execute();
    return rows.map(toProject);
  }

  private keyQuery() {
    return this.db
      .selectFrom('access_keys')
      .innerJoin('accounts', 'accounts.id', 'access_keys.account_id')
      .select([
        'access_keys.id',
        'access_keys.secret',
        'access_keys.account_id',
        'access_keys.user_name',
        'access_keys.status',
        'access_keys.created_at',
        'accounts.name as account_name',
      ]);
  }

  async createAccessKey(key: { id: string; secret: string; accountId: string; userName: string }, audit?: AuditEntry): Promise<AccessKey> {
    await this.changing(
      (trx) =>
        trx
          .insertInto('access_keys')
          .values({ id: key.id, secret: key.secret, account_id: key.accountId, user_name: key.userName, status: 'active', created_at: now(), revoked_at: null })
          .execute(),
      undefined,
      audit,
    );
    return toKey(await this.keyQuery().where('access_keys.id', '=', key.id).executeTakeFirstOrThrow());
  }

  async getAccessKey(id: string): Promise<AccessKey | undefined> {
    const row = await this.keyQuery().where('access_keys.id', '=', id).executeTakeFirst();
    return row && toKey(row);
  }

  async listAccessKeys(accountId: string): Promise<AccessKey[]> {
    const rows = await this.keyQuery().where('access_keys.account_id', '=', accountId).orderBy('access_keys.created_at').execute();
    return rows.map(toKey);
  }

  async revokeAccessKey(id: string, audit?: AuditEntry): Promise<boolean> {
    const result = await this.changing(
      (trx) =>
        trx.updateTable('access_keys').set({ status: 'revoked', revoked_at: now() }).where('id', '=', id).where('status', '=', 'active').executeTakeFirst(),
      undefined,
      audit,
    );
    return Number(result.numUpdatedRows) > 0;
  }

  // ---- bearer tokens (GA4GH APIs) -------------------------------------------------------------

  private tokenQuery() {
    return this.db
      .selectFrom('access_tokens')
      .innerJoin('accounts', 'accounts.id', 'access_tokens.account_id')
      .selectAll('access_tokens')
      .select('accounts.name as account_name');
  }

  async createAccessToken(token: NewAccessToken, audit?: AuditEntry): Promise<AccessToken> {
    await this.changing(
      (trx) =>
        trx
          .insertInto('access_tokens')
          .values({
            id: token.id,
            secret_sha256: token.secretSha256,
            account_id: token.accountId,
            project_name: token.projectName,
            user_name: token.userName,
            created_at: now(),
            expires_at: token.expiresAt,
            revoked_at: null,
          })
          .execute(),
      undefined,
      audit,
    );
    return toToken(await this.tokenQuery().where('access_tokens.id', '=', token.id).executeTakeFirstOrThrow());
  }

  async getAccessToken(id: string): Promise<AccessToken | undefined> {
    const row = await this.tokenQuery().where('access_tokens.id', '=', id).executeTakeFirst();
    return row && toToken(row);
  }

  async listAccessTokens(accountId: string): Promise<AccessToken[]> {
    const rows = await this.tokenQuery().where('access_tokens.account_id', '=', accountId).orderBy('access_tokens.created_at').execute();
    return rows.map(toToken);
  }

  async revokeAccessToken(id: string, audit?: AuditEntry): Promise<boolean> {
    const result = await this.changing(
      (trx) => trx.updateTable('access_tokens').set({ revoked_at: now() }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst(),
      undefined,
      audit,
    );
    return Number(result.numUpdatedRows) > 0;
  }

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

  // ---- settings ---------------------------------------------------------------------------------

  async getSetting(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  async initSetting(key: string, value: string): Promise<string> {
    // ON CONFLICT rather than catching the violation: inside a PostgreSQL transaction a failed
    // statement would abort the whole transaction.
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    return (await this.getSetting(key))!;
  }
}
