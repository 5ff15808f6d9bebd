import { invalid } from '../../errors.js';
import type { CwlDataLocations } from '../../cwl/runs/locations.js';
import type { WdlType } from '../types.js';

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

/** The inputs JSON value with its File and Directory values made host paths of the account's data store. */
export async function hostFiles(value: unknown, type: WdlType, account: string, locations: CwlDataLocations, field: string): Promise<unknown> {
  if (value === null || value === undefined) return value;
  switch (type.kind) {
    case 'File':
    case 'Directory': {
      if (typeof value !== 'string') return value;
      const uri = await locations.hostUri(account, dataPathOf(value, account, field), type.kind);
      if (uri === undefined) throw invalid(`${field}: there is no ${type.kind === 'File' ? 'file' : 'directory'} '${value}' in the data store`);
      return decodeURIComponent(uri.replace(/^file:\/\//, ''));
    }
    case 'Array':
      return Array.isArray(value) ? Promise.all(value.map((item, i) => hostFiles(item, type.item, account, locations, `${field}[${i}]`))) : value;
    case 'Pair': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const pair = value as { left?: unknown; right?: unknown };
      return {
        left: await hostFiles(pair.left, type.left, account, locations, `${field}.left`),
        right: await hostFiles(pair.right, type.right, account, locations, `${field}.right`),
      };
    }
    case 'Map': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      // A Map's keys may be Files too (`Map[File, Int]`): made host paths as its values are.
      for (const [k, v] of Object.entries(value)) {
        const key = await hostFiles(k, type.key, account, locations, `${field}.${k}`);
        out[typeof key === 'string' ? key : k] = await hostFiles(v, type.value, account, locations, `${field}.${k}`);
      }
      return out;
    }
    default:
      return value;
  }
}
