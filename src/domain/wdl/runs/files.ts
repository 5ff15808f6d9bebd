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

/** Where an inputs JSON value's data-store paths are read: the caller's account, its data store, the document's structs. */
export interface InputFiles {
  readonly account: string;
  readonly locations: CwlDataLocations;
  readonly structs: StructTable;
}

/** The inputs JSON value with its File and Directory values (also in structs' members) made host paths of the account's data store. */
export async function hostFiles(value: unknown, type: WdlType, where: InputFiles, field: string): Promise<unknown> {
  if (value === null || value === undefined) return value;
  const { account, locations } = where;
  switch (type.kind) {
    case 'File':
    case 'Directory': {
      if (typeof value !== 'string') return value;
      const uri = await locations.hostUri(account, dataPathOf(value, account, field), type.kind);
      if (uri === undefined) throw invalid(`${field}: there is no ${type.kind === 'File' ? 'file' : 'directory'} '${value}' in the data store`);
      return decodeURIComponent(uri.replace(/^file:\/\//, ''));
    }
    case 'Array':
      return Array.isArray(value) ? Promise.all(value.map((item, i) => hostFiles(item, type.item, where, `${field}[${i}]`))) : value;
    case 'Pair': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const pair = value as { left?: unknown; right?: unknown };
      return {
        left: await hostFiles(pair.left, type.left, where, `${field}.left`),
        right: await hostFiles(pair.right, type.right, where, `${field}.right`),
      };
    }
    case 'Map': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = await hostFiles(v, type.value, where, `${field}.${k}`);
      return out;
    }
    case 'Struct': {
      // A struct's File members (a sample's reads) are data-store paths like any File input.
      const members = where.structs.get(type.name);
      if (!members || typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const member = members.get(k);
        out[k] = member ? await hostFiles(v, member, where, `${field}.${k}`) : v;
      }
      return out;
    }
    default:
      return value;
  }
}
