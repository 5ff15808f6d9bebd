import type { Command } from 'commander';
import type { Client } from '../client/client.js';
import { usageError } from './exit.js';

/**
 * `--owner ACCOUNT[/PROJECT]`: the tools and workflows of another account, in practice the `public` one, which every
 * account may read and run with its own key (ActivateWorkflow's `workflow_owner`, INTERFACE.md 4.15). Every command
 * that reads or runs a workflow or tool takes it the same way.
 */

export const PUBLIC_ACCOUNT = 'public';

const OWNER = /^([A-Za-z][A-Za-z0-9_-]{2,127})(?:\/([A-Za-z][A-Za-z0-9_-]{2,127}))?$/;

export interface Owner {
  account: string;
  /** Undefined: the default project, or for the caller's own account the project addressed. */
  project: string | undefined;
  /** As given, for ActivateWorkflow's workflow_owner. */
  text: string;
}

/** Add `--owner` to a command; `what` ends the help text: "run a workflow", "read a tool", ... */
export function withOwner(command: Command, what: string): Command {
  return command.option('--owner <account>', `${what} of another account, e.g. '${PUBLIC_ACCOUNT}' (ACCOUNT or ACCOUNT/PROJECT; the default project if none)`);
}

export function parseOwner(value: string): Owner {
  const match = OWNER.exec(value);
  if (!match) throw usageError(`--owner must be an account name, or ACCOUNT/PROJECT (e.g. '${PUBLIC_ACCOUNT}'), not '${value}'`);
  return { account: match[1]!, project: match[2], text: value };
}

/**
 * The client that reads the owner's tools and workflows: the caller's own when no owner is given, or when the owner
 * is the caller's own account without a project (as ActivateWorkflow reads workflow_owner).
 */
export async function ownerClient(client: Client, owner: string | undefined): Promise<Client> {
  if (owner === undefined) return client;
  const { account, project } = parseOwner(owner);
  if (project === undefined && account === (await client.accountName())) return client;
  return client.inProject(account, project);
}
