/**
 * What the wdl/ routes answer for a WDL workflow or tool version (docs/wire.md §8, docs/wdl.md): summaries in lists,
 * and versions with their download links and input template in gets.
 */
import { roundTime } from '../../time.js';
import type { WdlVersion } from '../../../store/wdl.js';

/** Signed, expiring links to a version's files, which clients fetch without a signature (server/download-links.ts). */
export interface WdlFileLinks {
  url(baseUrl: string, versionId: string, part: 'source' | 'dependencies'): Promise<string>;
}

/** A version in a list: `{id, name, version, create_at, update_at}` and what else helps a reader. */
export function wdlSummary(v: WdlVersion) {
  return {
    id: v.workflowId,
    name: v.name,
    version: v.version,
    description: v.description,
    status: 'checked' as const,
    create_at: roundTime(v.createdAt),
    update_at: roundTime(v.modifiedAt),
    created_time: roundTime(v.createdAt),
    modified_time: roundTime(v.modifiedAt),
    ...(v.kind === 'tool' ? { app_id: v.workflowId } : {}),
  };
}

/** A version as read: its summary, its files as links (`dependencies` is '' when it has none) and its input template. */
export async function wdlDetail(v: WdlVersion, links: WdlFileLinks, baseUrl: string) {
  return {
    ...wdlSummary(v),
    source: await links.url(baseUrl, v.versionId, 'source'),
    source_name: v.sourceName,
    dependencies: v.dependenciesName === null ? '' : await links.url(baseUrl, v.versionId, 'dependencies'),
    dependencies_name: v.dependenciesName,
    inputs: v.inputs,
  };
}

/** Versions grouped per workflow, in the order given: the list of lists of the list routes. */
export function groupedSummaries(versions: readonly WdlVersion[]): Array<Array<ReturnType<typeof wdlSummary>>> {
  const groups = new Map<string, Array<ReturnType<typeof wdlSummary>>>();
  for (const v of versions) {
    let group = groups.get(v.workflowId);
    if (!group) groups.set(v.workflowId, (group = []));
    group.push(wdlSummary(v));
  }
  return [...groups.values()];
}
