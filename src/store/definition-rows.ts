/** Rows of the definition tables (accounts, projects, keys, tokens, tools, workflows) to the store's records. */

import type { Selectable } from 'kysely';
import { parseExactJson } from '../contract/exact-json.js';
import type { AccessTokensTable, ToolsTable, WorkflowsTable } from './schema.js';
import type { AccessKey, AccessToken, DefinitionStatus, DefinitionVersion, Json, Project, Tool, Visibility, Workflow } from './store.js';

export const now = (): number => Date.now() / 1000;

export const parseJson = (text: string | null): Json | null => (text === null ? null : (parseExactJson(text) as Json));

export type Owner = { account_name: string; project_name: string };

/** The columns a tool version row and a workflow version row share. */
function versionOf(row: Selectable<ToolsTable | WorkflowsTable> & Owner): DefinitionVersion {
  return {
    id: row.id,
    projectId: row.project_id,
    accountName: row.account_name,
    projectName: row.project_name,
    name: row.name,
    version: row.version,
    description: row.description,
    status: row.status as DefinitionStatus,
    visibility: row.visibility as Visibility,
    configs: parseJson(row.configs),
    cwl: parseJson(row.cwl),
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

export const toTool = (row: Selectable<ToolsTable> & Owner): Tool => ({ ...versionOf(row), category: row.category });

export const toWorkflow = (row: Selectable<WorkflowsTable> & Owner): Workflow => ({ ...versionOf(row), runTemplate: parseJson(row.run_template) });

export const toProject = (row: { id: string; account_id: string; name: string; created_at: number; account_name: string }): Project => ({
  id: row.id,
  accountId: row.account_id,
  accountName: row.account_name,
  name: row.name,
  createdAt: row.created_at,
});

export const toToken = (row: Selectable<AccessTokensTable> & { account_name: string }): AccessToken => ({
  id: row.id,
  secretSha256: row.secret_sha256,
  accountId: row.account_id,
  accountName: row.account_name,
  projectName: row.project_name,
  userName: row.user_name,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});

export const toKey = (row: {
  id: string;
  secret: string;
  account_id: string;
  user_name: string;
  status: string;
  created_at: number;
  account_name: string;
}): AccessKey => ({
  id: row.id,
  secret: row.secret,
  accountId: row.account_id,
  accountName: row.account_name,
  userName: row.user_name,
  status: row.status === 'active' ? 'active' : 'revoked',
  createdAt: row.created_at,
});
