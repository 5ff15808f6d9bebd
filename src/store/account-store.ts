/**
 * The base of the Kysely store: the transaction plumbing every part shares (retries on a lost race, the read
 * cache's generation bump, audit entries in the same transaction) and the rows the caller's identity is made of:
 * accounts, projects, access keys, access tokens, and settings. DefinitionStore (definition-store.ts) adds tools
 * and workflows, KyselyStore (kysely-store.ts) tasks and jobs.
 */
import type { Kysely, Transaction } from 'kysely';
import { newId } from '../ids.js';
import { insertAudit } from './audit-log.js';
import { bumpCacheGeneration } from './cache-generation.js';
import { now, toKey, toProject, toToken } from './definition-rows.js';
import { DIALECTS, type SqlDialect } from './dialect.js';
import type { KyselyStoreOptions } from './kysely-options.js';
import type { Database } from './schema.js';
import { isTransientConflict, isUniqueViolation } from './sql-errors.js';
import {
  AlreadyExists,
  type AccessKey,
  type AccessToken,
  type Account,
  type AuditEntry,
  type NewAccessToken,
  type Project,
  type StoreCapabilities,
} from './store.js';

/** How many times a transaction is retried when it lost a race to a concurrent writer. */
const RETRIES = 20;

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

export abstract class AccountStore {
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
        if (this.options.durableTransaction) return await this.options.durableTransaction(this.db, fn);
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
