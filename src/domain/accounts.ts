import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { newRequestId } from '../ids.js';
import { AlreadyExists, type AccessKey, type Account, type Project, type Store } from '../store/store.js';
import { DEFAULT_PROJECT, PUBLIC_ACCOUNT } from './access.js';
import { audited, refused, type Actor } from './audit.js';
import { DomainError, invalid, notFound } from './errors.js';
import { checkName } from './names.js';

/** Accounts, projects and access keys: what the operator manages with `gdflow admin`. */

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomText(length: number, alphabet: string): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

export const newAccessKeyId = (): string => `GD${randomText(18, KEY_ALPHABET)}`;
export const newAccessKeySecret = (): string => randomBytes(30).toString('base64url');

export interface NewAccount {
  account: Account;
  project: Project;
  key: AccessKey;
}

/** How the audit log names a domain refusal outside HTTP (the API records its error codes instead). */
export const refusalCode = (error: DomainError): string =>
  ({ invalid: 'InvalidInput', not_found: 'NotFound', forbidden: 'Forbidden', unsupported: 'Unsupported' })[error.kind];

/** The operator running `gdflow admin` (or a program using the services directly): no account, no key. */
export function operator(user: string = operatorUser()): Actor {
  return { requestId: newRequestId(), account: null, keyId: null, user };
}

function operatorUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A uid without a passwd entry (a container's): the number still tells who.
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

export class AccountService {
  constructor(private readonly store: Store) {}

  /** Make sure the public account and its default project exist (idempotent, run at start-up). */
  async bootstrap(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.transaction(async (store) => {
          const account = (await store.getAccount(PUBLIC_ACCOUNT)) ?? (await store.createAccount(PUBLIC_ACCOUNT));
          if (!(await store.getProject(PUBLIC_ACCOUNT, DEFAULT_PROJECT))) await store.createProject(account.id, DEFAULT_PROJECT);
        });
        return;
      } catch (error) {
        // Two servers starting on one new PostgreSQL database both find nothing and both create; the
        // second create fails on the unique name once the first commits, and a second look finds it.
        if (!(error instanceof AlreadyExists) || attempt >= 3) throw error;
      }
    }
  }

  /**
   * An account with its `default` project and a first access key, all or nothing. Like every write here, it is
   * recorded in the audit log as done by `actor` (by default the operator running `gdflow admin`).
   */
  async createAccount(name: string, userName?: string, actor: Actor = operator()): Promise<NewAccount> {
    return this.refusable(actor, 'CreateAccount', name, name, async () => {
      checkName('account_name', name);
      return this.store.transaction(async (store) => {
        if (await store.getAccount(name)) throw invalid(`account '${name}' already exists`);
        const account = await store.createAccount(name);
        const project = await store.createProject(account.id, DEFAULT_PROJECT);
        const key = await store.createAccessKey({ id: newAccessKeyId(), secret: newAccessKeySecret(), accountId: account.id, userName: userName ?? name });
        await store.recordAudit(audited(actor, 'CreateAccount', name, `${name} (project ${DEFAULT_PROJECT}, key ${key.id})`));
        return { account, project, key };
      });
    });
  }

  async createProject(accountName: string, projectName: string, actor: Actor = operator()): Promise<Project> {
    return this.refusable(actor, 'CreateProject', accountName, `${accountName}/${projectName}`, async () => {
      checkName('project_name', projectName);
      const account = await this.requireAccount(accountName);
      try {
        return await this.store.createProject(account.id, projectName, audited(actor, 'CreateProject', accountName, `${accountName}/${projectName}`));
      } catch (error) {
        if (error instanceof AlreadyExists) throw invalid(`project '${projectName}' already exists in account '${accountName}'`);
        throw error;
      }
    });
  }

  async createKey(accountName: string, userName?: string, actor: Actor = operator()): Promise<AccessKey> {
    return this.refusable(actor, 'CreateKey', accountName, accountName, async () => {
      const account = await this.requireAccount(accountName);
      const id = newAccessKeyId();
      return this.store.createAccessKey(
        { id, secret: newAccessKeySecret(), accountId: account.id, userName: userName ?? accountName },
        audited(actor, 'CreateKey', accountName, `${id} (user ${userName ?? accountName})`),
      );
    });
  }

  async revokeKey(accessKeyId: string, actor: Actor = operator()): Promise<void> {
    const key = await this.store.getAccessKey(accessKeyId);
    if (!key) {
      const reason = `access key '${accessKeyId}' does not exist`;
      await this.store.recordAudit(refused(actor, 'RevokeKey', '', accessKeyId, 'NotFound', reason));
      throw notFound(reason);
    }
    await this.store.revokeAccessKey(accessKeyId, audited(actor, 'RevokeKey', key.accountName, `${accessKeyId} (user ${key.userName})`));
  }

  /** Run a write; when the domain refuses it, record the refusal in an entry of its own and throw on. */
  private async refusable<T>(actor: Actor, operation: string, account: string, target: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof DomainError) await this.store.recordAudit(refused(actor, operation, account, target, refusalCode(error), error.reason));
      throw error;
    }
  }

  async listAccounts(): Promise<Array<{ account: Account; projects: Project[]; keys: AccessKey[] }>> {
    const accounts = await this.store.listAccounts();
    return Promise.all(
      accounts.map(async (account) => ({
        account,
        projects: await this.store.listProjects(account.id),
        keys: await this.store.listAccessKeys(account.id),
      })),
    );
  }

  private async requireAccount(name: string): Promise<Account> {
    const account = await this.store.getAccount(name);
    if (!account) throw notFound(`account '${name}' does not exist`);
    return account;
  }
}
