import type { Command } from 'commander';
import type { Client } from '../client/client.js';
import { formatTable, printJson, say, type Column } from './output.js';
import { ownerClient, parseOwner, PUBLIC_ACCOUNT, withOwner } from './owner.js';

/**
 * `tool ls` and `workflow ls`: the caller's project and, in a section of its own, the public account's, whose tools
 * and workflows every account can use. `--owner ACCOUNT` lists only that account's; `--no-public` only the caller's.
 */

export interface ListFlags {
  owner?: string;
  /** False with --no-public. */
  public: boolean;
  json?: boolean;
}

/** One project listed: its label (`alice/default`), the client that reads it, and whether it is the public one. */
export interface Listed {
  label: string;
  client: Client;
  isPublic: boolean;
}

export function withListOwner(command: Command, what: string): Command {
  return withOwner(command, `list only the ${what}`).option('--no-public', `list only your own ${what}, not the public account's`);
}

export async function listedProjects(client: Client, flags: ListFlags): Promise<Listed[]> {
  const own = await client.accountName();
  if (flags.owner !== undefined) {
    const owner = parseOwner(flags.owner);
    const source = await ownerClient(client, flags.owner);
    return [{ label: `${owner.account}/${source.project}`, client: source, isPublic: owner.account === PUBLIC_ACCOUNT }];
  }
  const listed: Listed[] = [{ label: `${own}/${client.project}`, client, isPublic: own === PUBLIC_ACCOUNT }];
  if (flags.public && own !== PUBLIC_ACCOUNT) listed.push({ label: `${PUBLIC_ACCOUNT}/default`, client: client.inProject(PUBLIC_ACCOUNT), isPublic: true });
  return listed;
}

/** The rows of every project listed, read at once. */
export function listEach<T>(listed: Listed[], rows: (client: Client) => Promise<T[]>): Promise<Array<{ listed: Listed; rows: T[] }>> {
  return Promise.all(listed.map(async (project) => ({ listed: project, rows: await rows(project.client) })));
}

/**
 * Print the rows of each project listed: as JSON, one list whose rows carry `owner` (the project's label); as text,
 * a table per project, each under a heading when there are several.
 */
export function printListed<T extends object>(
  sections: Array<{ listed: Listed; rows: T[] }>,
  columns: Column<T>[],
  what: string,
  json: boolean | undefined,
): void {
  if (json) return printJson(sections.flatMap(({ listed, rows }) => rows.map((row) => ({ ...row, owner: listed.label }))));
  const several = sections.length > 1;
  for (const [i, { listed, rows }] of sections.entries()) {
    if (several) {
      if (i > 0) say('');
      say(listed.isPublic ? `public ${what} (${listed.label}: every account can use them, with --owner ${PUBLIC_ACCOUNT}):` : `${what} of ${listed.label}:`);
    }
    if (rows.length > 0) say(formatTable(rows, columns));
    else say(listed.isPublic ? `no public ${what}` : `no ${what} in this project`);
  }
}
