import type { Client } from '../client/client.js';
import { GdApiError } from '../client/errors.js';
import { nearestName } from '../domain/nearest-name.js';
import { CliError, EXIT } from './exit.js';
import { PUBLIC_ACCOUNT } from './owner.js';

/**
 * "Not found" the same way in every command: the thing's kind and name, where it was looked for, and the nearest
 * name that does exist there. The server's own answers name nothing ("Get Tool cannot find anything.", a 400 for an
 * unknown workflow): after a refusal the CLI lists what exists, and when the name is not among it, says so; when it
 * is, the refusal was about something else (a version, a state) and the server's message stands.
 */

export interface Missing {
  /** `tool`, `workflow`, `task`, `data item`, ... */
  kind: string;
  name: string;
  /** Where it was looked for: `alice/default`, `public/default`, `alice:/reads/`. */
  where: string;
  /** The names that exist there; asked for only after a refusal. */
  known: () => Promise<string[]>;
  /** Words after the suggested name, e.g. a task's name beside its id. */
  describe?: (suggestion: string) => string;
  /** Where else the name is, said after the suggestion: `; the public account has one: add --owner public`. */
  elsewhere?: () => Promise<string>;
}

/** Lists longer than this are not printed in full when nothing is near. */
const LISTED = 10;

/** `; did you mean 'x'?`, or the few names there are, or nothing. */
export function didYouMean(name: string, known: readonly string[], describe: (name: string) => string = (n) => `'${n}'`): string {
  const nearest = nearestName(name, known);
  if (nearest !== undefined) return `; did you mean ${describe(nearest)}?`;
  if (known.length === 0) return ' (there are none)';
  if (known.length <= LISTED) return ` (there are: ${known.join(', ')})`;
  return '';
}

/** The error for a name that is not there; `more` ends the message. */
export function missingError(kind: string, name: string, where: string, known: readonly string[], describe?: (name: string) => string, more = ''): CliError {
  return new CliError(`${kind} '${name}' not found in ${where}${didYouMean(name, known, describe)}${more}`, EXIT.failed);
}

/** Refusals that may mean "no such name": GetWorkflow answers an unknown name with a 400 (INTERFACE.md 4.10). */
const mayBeMissing = (error: unknown): error is GdApiError => error instanceof GdApiError && (error.status === 404 || error.status === 400);

/**
 * A `.catch` handler: when the refusal is for a name that is not there, a CliError naming it and the nearest name;
 * otherwise the refusal itself.
 */
export function unlessMissing(missing: Missing | (() => Promise<Missing>)): (error: unknown) => Promise<never> {
  return async (error: unknown) => {
    if (!mayBeMissing(error)) throw error;
    const thing = typeof missing === 'function' ? await missing() : missing;
    // The listing is a courtesy: when it fails too, the first refusal is what the user needs to see.
    const known = await thing.known().catch(() => undefined);
    if (known === undefined || known.includes(thing.name)) throw error;
    const elsewhere = (await thing.elsewhere?.().catch(() => '')) ?? '';
    // The server's code and request id stay: an operator finds the request's log line by it.
    const answer = ` [${error.status} ${error.errorCode}${error.requestId ? `, request ${error.requestId}` : ''}]`;
    throw missingError(thing.kind, thing.name, thing.where, [...new Set(known)].sort(), thing.describe, elsewhere + answer);
  };
}

const project = async (client: Client): Promise<string> => `${await client.accountName()}/${client.project}`;

/** ListTool and ListWorkflow answer an empty project with a 404: no names. */
const emptyOn404 = <T>(list: Promise<T[]>): Promise<T[]> =>
  list.catch((error: unknown) => {
    if (error instanceof GdApiError && error.status === 404) return [];
    throw error;
  });

const toolNames = (client: Client) => emptyOn404(client.listTools().then((list) => list.items.flat().map((t) => t.tool_name)));
const workflowNames = (client: Client) => emptyOn404(client.listWorkflows().then((list) => list.items.flat().map((w) => w.workflow_name)));

/** `; the public account has a tool 'x': add --owner public`, when the caller looked in its own project. */
function inPublic(client: Client, kind: string, name: string, names: (client: Client) => Promise<string[]>): () => Promise<string> {
  return async () => {
    if ((await client.accountName()) === PUBLIC_ACCOUNT) return '';
    const found = (await names(client.inProject(PUBLIC_ACCOUNT))).includes(name);
    return found ? `; the public account has a ${kind} '${name}': add --owner ${PUBLIC_ACCOUNT}` : '';
  };
}

export const missingTool = (client: Client, name: string): ((error: unknown) => Promise<never>) =>
  unlessMissing(async () => ({
    kind: 'tool',
    name,
    where: await project(client),
    known: () => toolNames(client),
    elsewhere: inPublic(client, 'tool', name, toolNames),
  }));

export const missingWorkflow = (client: Client, name: string): ((error: unknown) => Promise<never>) =>
  unlessMissing(async () => ({
    kind: 'workflow',
    name,
    where: await project(client),
    known: () => workflowNames(client),
    elsewhere: inPublic(client, 'workflow', name, workflowNames),
  }));

/** Tasks are looked for among the newest thousand; a task name given for an id is pointed at its id. */
export const missingTask = (client: Client, id: string): ((error: unknown) => Promise<never>) =>
  unlessMissing(async () => {
    const tasks = (await client.listTasks({ size: 1000 }).catch(() => ({ task_list: [] }))).task_list;
    const named = tasks.find((t) => t.task_name === id);
    if (named) throw new CliError(`'${id}' is a task name; task commands take the task id: ${named.task_id}`, EXIT.usage);
    const byName = new Map(tasks.map((t) => [t.task_name, t.task_id]));
    const byId = new Map(tasks.map((t) => [t.task_id, t.task_name]));
    return {
      kind: 'task',
      name: id,
      where: await project(client),
      known: () => Promise.resolve([...tasks.map((t) => t.task_id), ...tasks.map((t) => t.task_name)]),
      // Either way the suggestion shows the id to use and the name it goes by.
      describe: (found) => (byName.has(found) ? `${byName.get(found)} (${found})` : `${found} (${byId.get(found)})`),
    };
  });

/** A data item is looked for in its directory: `alice:/reads/a.fq` among the items of `alice:/reads/`. */
export const missingData = (client: Client, name: string): ((error: unknown) => Promise<never>) =>
  unlessMissing(async () => {
    const ref = await client.dataRef(name);
    const dir = `${ref.account}:${ref.path.slice(0, ref.path.lastIndexOf('/') + 1)}`;
    return {
      kind: 'data item',
      name: `${ref.account}:${ref.path}`,
      where: dir,
      known: () => client.listData(dir, { limit: 10_000 }).then((list) => list.items.map((i) => i.name)),
    };
  });
