import { forbidden, notFound } from './errors.js';
import type { Project, Store, Visibility } from '../store/store.js';

/** The account every other account can read from. */
export const PUBLIC_ACCOUNT = 'public';
export const DEFAULT_PROJECT = 'default';

/** Who is making a request: resolved from the access key that signed it. */
export interface Caller {
  accountId: string;
  accountName: string;
  userName: string;
  accessKeyId: string;
  /** The id of the request being served (x-gd-requestid), for the audit log. */
  requestId?: string;
  /** The client's address (behind a trusted proxy, the one it forwarded), for the audit log. */
  clientAddress?: string;
  /** The one project a bearer token may act in (docs/ga4gh.md); absent for keys and project-less tokens. */
  project?: string;
}

/** The project a request addresses, and what the caller may do there. */
export interface ProjectAccess {
  project: Project;
  /** True when the caller's account owns the project (read and write); false for read-only. */
  owner: boolean;
}

export type AccessMode = 'read' | 'write';

/** Resources owned by the public account are public; everything else is private to its account. */
export const visibilityFor = (accountName: string): Visibility => (accountName === PUBLIC_ACCOUNT ? 'public' : 'private');

/**
 * Resolve `/accounts/<a>/projects/<p>/` for a caller. An account acts only on its own projects,
 * and may read (never change) the public account's projects.
 */
export async function openProject(store: Store, caller: Caller, accountName: string, projectName: string, mode: AccessMode): Promise<ProjectAccess> {
  const own = accountName === caller.accountName;
  if (!own) {
    if (accountName !== PUBLIC_ACCOUNT) {
      throw forbidden(`account '${caller.accountName}' may not access projects of account '${accountName}'`);
    }
    if (mode === 'write') throw forbidden(`account '${caller.accountName}' may read but not change resources of account '${PUBLIC_ACCOUNT}'`);
  }
  const project = await store.getProject(accountName, projectName);
  if (!project) throw notFound(`project '${projectName}' does not exist in account '${accountName}'`);
  return { project, owner: own };
}

/** The methods of `authorized_methods` for a resource the caller can see. */
export const authorizedMethods = (owner: boolean): string[] => (owner ? ['GET', 'PUT', 'DELETE'] : ['GET']);
