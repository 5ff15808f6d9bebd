import { isDeepStrictEqual } from 'node:util';
import type { AccountService } from '../domain/accounts.js';
import type { Transport } from '../client/transport.js';
import { validateToolDefinition } from '../domain/tools/definition.js';
import type { AccessKey, Store } from '../store/store.js';

/**
 * What the demo registers, registered so that running it again adds nothing: the account's key, and a tool or
 * workflow version whose definition is identical to the document's, are reused. A changed document makes a new
 * version, as does the demo on a container executor (its tools name the demo image), so that what runs is always
 * what examples/demo/ says; going back to a document already registered reuses that version again.
 */

export interface Registered {
  version: number;
  /** An identical version was there already. */
  reused: boolean;
}

/** The account's first active key, or a new account (or a new key when every key was revoked). */
export async function demoKey(store: Store, accounts: AccountService, account: string): Promise<{ key: AccessKey; reused: boolean }> {
  const existing = await store.getAccount(account);
  if (!existing) return { key: (await accounts.createAccount(account)).key, reused: false };
  const active = (await store.listAccessKeys(existing.id)).find((k) => k.status === 'active');
  return active ? { key: active, reused: true } : { key: await accounts.createKey(account), reused: false };
}

/** Where the demo registers: the account's `default` project, on the API and in the store. */
export interface DemoProject {
  api: Transport;
  store: Store;
  account: string;
  /** `/accounts/<account>/projects/default` */
  path: string;
}

interface Version {
  version: number;
  description: string;
  status: string;
  configs: unknown;
}

/** The latest checked version holding exactly this description and (stored) definition. */
const identical = (versions: Version[], description: string, configs: unknown): Version | undefined =>
  versions.findLast((v) => v.status === 'checked' && v.description === description && isDeepStrictEqual(v.configs, configs));

/** CreateX then PutX through the API; CreateX answers nothing, so the version it took is read back. */
async function newVersion(at: DemoProject, kind: 'tool' | 'workflow', name: string, description: string, configs: unknown): Promise<number> {
  const collection = `${at.path}/${kind}s`;
  await at.api.send('POST', `${collection}/`, { json: { [`${kind}_name`]: name, description } });
  const project = (await at.store.getProject(at.account, 'default'))!;
  const versions = kind === 'tool' ? await at.store.getToolVersions(project.id, name) : await at.store.getWorkflowVersions(project.id, name);
  const version = versions[versions.length - 1]!.version;
  await at.api.send('PUT', `${collection}/${name}/`, { json: { [`${kind}_version`]: version, configs } });
  return version;
}

export async function registerTool(at: DemoProject, name: string, document: Record<string, unknown>): Promise<Registered> {
  const description = typeof document.description === 'string' ? document.description : '';
  // Compared as PutTool stores it (the read-only members dropped, the name filled in), not as sent.
  const { stored } = validateToolDefinition(document, name);
  const project = await at.store.getProject(at.account, 'default');
  const same = project && identical(await at.store.getToolVersions(project.id, name), description, stored);
  if (same) return { version: same.version, reused: true };
  return { version: await newVersion(at, 'tool', name, description, document), reused: false };
}

export async function registerWorkflow(at: DemoProject, name: string, description: string, configs: { nodelist: unknown[] }): Promise<Registered> {
  const project = await at.store.getProject(at.account, 'default');
  // PutWorkflow stores the configuration as sent.
  const same = project && identical(await at.store.getWorkflowVersions(project.id, name), description, configs);
  if (same) return { version: same.version, reused: true };
  return { version: await newVersion(at, 'workflow', name, description, configs), reused: false };
}
