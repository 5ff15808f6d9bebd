/** The store's records of accounts, keys, tokens, tools and workflows, and the parts of the Store interface that keep them. */

import type { AuditEntry } from './audit.js';

export type Visibility = 'public' | 'private' | 'system';
export type DefinitionStatus = 'checked' | 'unchecked';
export type Json = Record<string, unknown>;

export interface Account {
  id: string;
  name: string;
  createdAt: number;
}

export interface Project {
  id: string;
  accountId: string;
  accountName: string;
  name: string;
  createdAt: number;
}

export interface AccessKey {
  id: string;
  secret: string;
  accountId: string;
  accountName: string;
  userName: string;
  status: 'active' | 'revoked';
  createdAt: number;
}

/** What a version of a tool and a version of a workflow both are. */
export interface DefinitionVersion {
  id: string;
  projectId: string;
  accountName: string;
  projectName: string;
  name: string;
  version: number;
  description: string;
  status: DefinitionStatus;
  visibility: Visibility;
  /** The definition as put (INTERFACE.md 2.2 and 2.3), or null before the first valid put. */
  configs: Json | null;
  /** A version imported from CWL: `{document, process}`, the packed document and its process (docs/cwl.md, "Import"). */
  cwl: Json | null;
  createdAt: number;
  modifiedAt: number;
}

/** One version of a tool. */
export interface Tool extends DefinitionVersion {
  category: string;
}

/** One version of a workflow. */
export interface Workflow extends DefinitionVersion {
  /** Saved run-parameter defaults (docs/wire.md §2 "set run template"), or null. */
  runTemplate: Json | null;
}

export interface NewVersion {
  projectId: string;
  name: string;
  description: string;
  visibility: Visibility;
  /** When given, the version the client expects to create; a mismatch throws VersionConflict. */
  expectedVersion?: number;
}

/** The next free version differs from the one the client asked for. */
export class VersionConflict extends Error {
  constructor(readonly nextVersion: number) {
    super(`the next version is ${nextVersion}`);
    this.name = 'VersionConflict';
  }
}

/** A row is referenced by another and cannot be deleted. */
export class InUse extends Error {
  constructor(readonly by: string[]) {
    super(`in use by ${by.join(', ')}`);
    this.name = 'InUse';
  }
}

/** A unique name is taken, or (`key` 'id') the id a new row was given. */
export class AlreadyExists extends Error {
  constructor(
    what: string,
    readonly key: 'name' | 'id' = 'name',
  ) {
    super(`${what} already exists`);
    this.name = 'AlreadyExists';
  }
}

/**
 * The store cannot serve the request now, though nothing is wrong with the request: the database is unreachable, or
 * stayed busy through every retry. The server answers 503 ServiceUnavailable; the same request may be sent again.
 */
export class StoreUnavailable extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'StoreUnavailable';
  }
}

/*
 * Writes asked of the API or of `gdflow admin` take the audit entry that records them (AuditStore): it is written in
 * the write's own transaction, so the log holds exactly the writes that were committed.
 */
export interface AccountStore {
  createAccount(name: string): Promise<Account>;
  getAccount(name: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  createProject(accountId: string, name: string, audit?: AuditEntry): Promise<Project>;
  getProject(accountName: string, projectName: string): Promise<Project | undefined>;
  listProjects(accountId: string): Promise<Project[]>;
  createAccessKey(key: { id: string; secret: string; accountId: string; userName: string }, audit?: AuditEntry): Promise<AccessKey>;
  getAccessKey(id: string): Promise<AccessKey | undefined>;
  /** A cached key without waiting: null when known missing, undefined when not cached (stores without a cache omit it). */
  peekAccessKey?(id: string): AccessKey | null | undefined;
  /**
   * A number that changes whenever anything the store's read cache holds may have changed (every
   * write through it; others' writes as the cache notices them). Stores without a cache omit it.
   */
  cacheGeneration?(): number;
  listAccessKeys(accountId: string): Promise<AccessKey[]>;
  revokeAccessKey(id: string, audit?: AuditEntry): Promise<boolean>;
}

/**
 * A bearer token of the GA4GH APIs (docs/ga4gh.md, "Authentication"): made by `gdflow admin create-token`, it acts for
 * its account (in one project of it, or the default one) until it expires or is revoked. Only its secret's SHA-256 is kept.
 */
export interface AccessToken {
  id: string;
  secretSha256: string;
  accountId: string;
  accountName: string;
  projectName: string | null;
  userName: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface NewAccessToken {
  id: string;
  secretSha256: string;
  accountId: string;
  projectName: string | null;
  userName: string;
  expiresAt: number;
}

export interface TokenStore {
  createAccessToken(token: NewAccessToken, audit?: AuditEntry): Promise<AccessToken>;
  getAccessToken(id: string): Promise<AccessToken | undefined>;
  /** A cached token without waiting: null when known missing, undefined when not cached (stores without a cache omit it). */
  peekAccessToken?(id: string): AccessToken | null | undefined;
  listAccessTokens(accountId: string): Promise<AccessToken[]>;
  /** Returns whether a token that was not revoked yet is now. */
  revokeAccessToken(id: string, audit?: AuditEntry): Promise<boolean>;
}

export interface ToolUpdate {
  description?: string;
  configs: Json;
  category: string;
  status: DefinitionStatus;
  /** The CWL document of a version imported from CWL (absent: unchanged). */
  cwl?: Json;
}

export interface WorkflowUpdate {
  description?: string;
  configs: Json;
  status: DefinitionStatus;
  toolIds: string[];
  /** The CWL document of a version imported from CWL (absent: unchanged). */
  cwl?: Json;
}

export interface ToolStore {
  createTool(input: NewVersion, audit?: AuditEntry): Promise<Tool>;
  /**
   * Replace a tool version's definition. With `refuseIfPinned`, throws InUse (naming the workflows)
   * when a workflow version pins it, checked atomically with the write: a concurrent PutWorkflow
   * either pins it before (and the put is refused) or after.
   */
  putTool(id: string, update: ToolUpdate, options?: { refuseIfPinned?: boolean }, audit?: AuditEntry): Promise<void>;
  getTool(projectId: string, name: string, version: number): Promise<Tool | undefined>;
  getToolById(id: string): Promise<Tool | undefined>;
  getToolVersions(projectId: string, name: string): Promise<Tool[]>;
  /** Every version of every tool in the project, ordered by name then version. */
  listTools(projectId: string): Promise<Tool[]>;
  /** Throws InUse (naming the workflows) when a workflow version pins this tool version. */
  deleteTool(id: string, audit?: AuditEntry): Promise<void>;
}

export interface WorkflowStore {
  createWorkflow(input: NewVersion, audit?: AuditEntry): Promise<Workflow>;
  /** Replace the configuration and the pinned tool versions in one transaction. */
  putWorkflow(id: string, update: WorkflowUpdate, audit?: AuditEntry): Promise<void>;
  setRunTemplate(id: string, template: Json, audit?: AuditEntry): Promise<void>;
  getWorkflow(projectId: string, name: string, version: number): Promise<Workflow | undefined>;
  getWorkflowById(id: string): Promise<Workflow | undefined>;
  getWorkflowVersions(projectId: string, name: string): Promise<Workflow[]>;
  listWorkflows(projectId: string): Promise<Workflow[]>;
  /** Names of `account/project/workflow:version` that pin the tool version. */
  workflowsUsingTool(toolId: string): Promise<string[]>;
  deleteWorkflow(id: string, audit?: AuditEntry): Promise<void>;
}
