import { invalid } from '../../errors.js';
import type { CwlDataLocations } from '../../cwl/runs/locations.js';
import type { StructTable, WdlType } from '../types.js';

/**
 * A data-store path as GeneDock's WDL clients write it: `acct:/home/admin/x.fq` (the account must be the caller's),
 * `/home/admin/x.fq`, or `gdflow:home/admin/x.fq`. `field` names it in the error.
 */
export function dataPathOf(text: string, account: string, field: string): string {
  let path = text;
  const prefixed = /^([A-Za-z0-9_-]+):(\/.*)$/.exec(text);
  if (text.startsWith('gdflow:')) path = `/${text.slice('gdflow:'.length).replace(/^\/+/, '')}`;
  else if (prefixed) {
    if (prefixed[1] !== account) throw invalid(`${field}: '${text}' is in account '${prefixed[1]}', not in '${account}'`);
    path = prefixed[2]!;
  }
  if (!path.startsWith('/') || path.split('/').includes('..'))
    throw invalid(`${field}: '${text}' is not a path of the data store such as '${account}:/home/admin/reads.fq'`);
  return path.replace(/\/+$/, '') || '/';
}

/** Where the inputs JSON's data paths are read: the caller's account, its data store, and the document's structs. */
export interface HostFilesContext {
  readonly account: string;
  readonly locations: CwlDataLocations;
  readonly structs: StructTable;
}

/**
 * The inputs JSON value with its File and Directory values made host paths of the account's data store, at any depth:
 * in arrays, maps' values, pairs and structs' members. Anything not of its type is left for the type check to refuse.
 */
export async function hostFiles(value: unknown, type: WdlType, context: HostFilesContext, field: string): Promise<unknown> {
  if (value === null || value === undefined) return value;
  const { account, locations } = context;
  const inner = (item: unknown, itemType: WdlType, at: string) => hostFiles(item, itemType, context, at);
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  switch (type.kind) {
    case 'File':
    case 'Directory': {
      if (typeof value !== 'string') return value;
      const uri = await locations.hostUri(account, dataPathOf(value, account, field), type.kind);
      if (uri === undefined) throw invalid(`${field}: there is no ${type.kind === 'File' ? 'file' : 'directory'} '${value}' in the data store`);
      return decodeURIComponent(uri.replace(/^file:\/\//, ''));
    }
    case 'Array':
      return Array.isArray(value) ? Promise.all(value.map((item, i) => inner(item, type.item, `${field}[${i}]`))) : value;
    case 'Pair':
      if (!isRecord(value)) return value;
      return { ...value, left: await inner(value.left, type.left, `${field}.left`), right: await inner(value.right, type.right, `${field}.right`) };
    case 'Map': {
      if (!isRecord(value)) return value;
      const out: Record<string, unknown> = {};
      // A Map's keys may be Files too (`Map[File, Int]`): made host paths as its values are.
      for (const [k, v] of Object.entries(value)) {
        const key = await inner(k, type.key, `${field}.${k}`);
        out[typeof key === 'string' ? key : k] = await inner(v, type.value, `${field}.${k}`);
      }
      return out;
    }
    case 'Struct': {
      const members = context.structs.get(type.name);
      if (!isRecord(value) || !members) return value;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const memberType = members.get(k);
        out[k] = memberType ? await inner(v, memberType, `${field}.${k}`) : v;
      }
      return out;
    }
    default:
      return value;
  }
}
