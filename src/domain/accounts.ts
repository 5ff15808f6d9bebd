import { randomBytes } from 'node:crypto';
import { AlreadyExists, type AccessKey, type Account, type Project, type Store } from '../store/store.js';
import { DEFAULT_PROJECT, PUBLIC_ACCOUNT } from './access.js';
import { invalid, notFound } from './errors.js';
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

  /** An account with its `default` project and a first access key, all or nothing. */
  async createAccount(name: string, userName?: string): Promise<NewAccount> {
    checkName('account_name', name);
    return this.store.transaction(async (store) => {
      if (await store.getAccount(name)) throw invalid(`account '${name}' already exists`);
      const account = await store.createAccount(name);
      const project = await store.createProject(account.id, DEFAULT_PROJECT);
      const key = await store.createAccessKey({ id: newAccessKeyId(), secret: newAccessKeySecret(), accountId: account.id, userName: userName ?? name });
      return { account, project, key };
    });
  }

  async createProject(accountName: string, projectName: string): Promise<Project> {
    checkName('project_name', projectName);
    const account = await this.requireAccount(accountName);
    try {
      return await this.store.createProject(account.id, projectName);
    } catch (error) {
      if (error instanceof AlreadyExists) throw invalid(`project '${projectName}' already exists in account '${accountName}'`);
      throw error;
    }
  }

  async createKey(accountName: string, userName?: string): Promise<AccessKey> {
    const account = await this.requireAccount(accountName);
    return this.store.createAccessKey({ id: newAccessKeyId(), secret: newAccessKeySecret(), accountId: account.id, userName: userName ?? accountName });
  }

  async revokeKey(accessKeyId: string): Promise<void> {
    const key = await this.store.getAccessKey(accessKeyId);
    if (!key) throw notFound(`access key '${accessKeyId}' does not exist`);
    await this.store.revokeAccessKey(accessKeyId);
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
