import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { DataStore } from '../../data/index.js';
import { toJson, type WdlValue } from '../../domain/wdl/values.js';
import { allowedPath } from '../deferred/staging.js';
import { pathToFileURL } from 'node:url';
import { STDERR_NAME, STDOUT_NAME } from './work-files.js';

/**
 * The name a file gets in output_dir: its own, but a call's streams (`File report = stdout()`), hidden in its working
 * directory so that a glob does not take them, are `stdout` and `stderr` there, as Cromwell names them.
 */
const STREAM_NAMES = new Map([
  [STDOUT_NAME, 'stdout'],
  [STDERR_NAME, 'stderr'],
]);

/**
 * A WDL run's final outputs copied into its account's data store under the run's output_dir (GeneDock's `output_dir`),
 * each File by its name (a second of the same name gets `_2`...), each Directory with its tree; the outputs as JSON
 * with those Files as data-store paths `<account>:/<output_dir>/<name>`, as GeneDock's clients read them.
 */
export async function storeWdlOutputs(
  outputs: { readonly [name: string]: WdlValue },
  dataStore: DataStore,
  account: string,
  outputDir: string,
  allowed: readonly string[],
): Promise<Record<string, unknown>> {
  const taken = new Set<string>();
  const stored = new Map<string, string>();
  const place = async (host: string, kind: 'File' | 'Directory'): Promise<string> => {
    const known = stored.get(host);
    if (known) return known;
    const source = await allowedPath(pathToFileURL(host).href, allowed, 'an output of the run');
    const name = STREAM_NAMES.get(basename(host)) ?? basename(host);
    let path = `${outputDir.replace(/\/$/, '')}/${name}`;
    for (let n = 2; taken.has(path); n++) path = `${outputDir.replace(/\/$/, '')}/${name}_${n}`;
    taken.add(path);
    if (kind === 'File') await dataStore.importFile({ account, path }, source);
    else await copyTree(dataStore, account, source, path);
    stored.set(host, path);
    return path;
  };
  const visit = async (value: WdlValue): Promise<WdlValue> => {
    switch (value.t) {
      case 'File':
      case 'Directory':
        return { t: 'String', v: `${account}:${await place(value.v, value.t)}` };
      case 'Array': {
        const items: WdlValue[] = [];
        for (const item of value.items) items.push(await visit(item));
        return { t: 'Array', items };
      }
      case 'Pair':
        return { t: 'Pair', left: await visit(value.left), right: await visit(value.right) };
      case 'Map': {
        const entries: (readonly [WdlValue, WdlValue])[] = [];
        for (const [k, v] of value.entries) entries.push([k, await visit(v)]);
        return { t: 'Map', entries };
      }
      case 'Object':
      case 'Struct': {
        const members: Record<string, WdlValue> = {};
        for (const [k, v] of Object.entries(value.members)) members[k] = await visit(v);
        return { ...value, members };
      }
      default:
        return value;
    }
  };
  const out: Record<string, unknown> = {};
  // One at a time: the names a second file of the same name gets must not depend on timing.
  for (const [name, value] of Object.entries(outputs)) out[name] = toJson(await visit(value));
  return out;
}

async function copyTree(dataStore: DataStore, account: string, source: string, path: string): Promise<void> {
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const child = `${path}/${entry.name}`;
    if (entry.isDirectory()) await copyTree(dataStore, account, join(source, entry.name), child);
    else if (entry.isFile()) await dataStore.importFile({ account, path: child }, join(source, entry.name));
  }
}
