import { isId } from '../../ids.js';
import type { Store, Tool } from '../../store/store.js';
import { PUBLIC_ACCOUNT, DEFAULT_PROJECT } from '../access.js';
import { decimalVersion } from '../names.js';
import { readToolDefinition } from '../tools/definition.js';
import type { ResolvedTool } from './graph.js';

/**
 * Resolve the `app_id`s of a workflow's tool nodes for the account that owns the workflow: a
 * tool's `_id`, `/<account>/<tool>/<version>` or `/<account>/<project>/<tool>/<version>`. Only
 * checked tool versions of the owner's own account, or public ones, resolve.
 */
export async function resolveTools(store: Store, appIds: string[], owner: { accountName: string; projectName: string }): Promise<Map<string, ResolvedTool>> {
  const resolved = new Map<string, ResolvedTool>();
  for (const appId of appIds) {
    const tool = await findTool(store, appId, owner);
    if (!tool || tool.status !== 'checked') continue;
    if (tool.accountName !== owner.accountName && !(tool.visibility === 'public' && tool.accountName === PUBLIC_ACCOUNT)) continue;
    resolved.set(appId, {
      id: tool.id,
      accountName: tool.accountName,
      projectName: tool.projectName,
      name: tool.name,
      version: tool.version,
      definition: readToolDefinition(tool.configs),
      ...(tool.cwl !== null ? { importedFromCwl: true } : {}),
    });
  }
  return resolved;
}

async function findTool(store: Store, appId: string, owner: { accountName: string; projectName: string }): Promise<Tool | undefined> {
  if (isId(appId)) return store.getToolById(appId);
  const parts = appId.split('/');
  if (parts[0] !== '' || (parts.length !== 4 && parts.length !== 5)) return undefined;
  const account = parts[1]!;
  const project = parts.length === 5 ? parts[2]! : account === owner.accountName ? owner.projectName : DEFAULT_PROJECT;
  const name = parts[parts.length - 2]!;
  const version = decimalVersion(parts[parts.length - 1]!);
  if (version === undefined) return undefined;
  const projectRow = await store.getProject(account, project);
  return projectRow ? store.getTool(projectRow.id, name, version) : undefined;
}
