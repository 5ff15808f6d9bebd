/**
 * Who is signed in: the access key, the account and user it belongs to, and the project the console works in.
 * Kept in memory and in sessionStorage (so that a reload of the tab stays signed in; closing the tab forgets it),
 * never in localStorage, a cookie or a URL. Signing out clears both and reloads the page, which drops every
 * answer held in memory.
 */
import { Api, type Credentials } from './api.js';

export interface Session extends Credentials {
  account: string;
  user: string;
  project: string;
}

const KEY = 'gdflow.console.session';

let current: { session: Session; api: Api } | undefined;

function restore(): void {
  if (current) return;
  try {
    const text = sessionStorage.getItem(KEY);
    if (!text) return;
    const session = JSON.parse(text) as Session;
    if (typeof session.accessKeyId === 'string' && typeof session.accessKeySecret === 'string' && typeof session.account === 'string') {
      current = { session, api: new Api(session) };
    }
  } catch {
    sessionStorage.removeItem(KEY);
  }
}

export function session(): Session | undefined {
  restore();
  return current?.session;
}

/** The signed-in API client; throws when nobody is signed in (pages are shown only then). */
export function api(): Api {
  restore();
  if (!current) throw new Error('not signed in');
  return current.api;
}

/**
 * Check the key with the server (GET /miscellaneous/credentials/ answers the account and user of the signing key)
 * and keep it. Throws the server's error (a wrong secret: SignatureDoesNotMatch; an unknown key: InvalidAccessKeyId).
 */
export async function signIn(accessKeyId: string, accessKeySecret: string, project: string): Promise<Session> {
  const client = new Api({ accessKeyId, accessKeySecret });
  const who = await client.json<{ account_name: string; user_name: string }>('GET', '/miscellaneous/credentials/');
  const signedIn: Session = { accessKeyId, accessKeySecret, account: who.account_name, user: who.user_name, project: project || 'default' };
  // The project must exist (and be the account's): its task list answers then.
  await client.json('GET', `/accounts/${encodeURIComponent(signedIn.account)}/projects/${encodeURIComponent(signedIn.project)}/tasks/`, { query: { size: 1 } });
  current = { session: signedIn, api: client };
  sessionStorage.setItem(KEY, JSON.stringify(signedIn));
  return signedIn;
}

export function signOut(): void {
  current = undefined;
  sessionStorage.clear();
  location.replace('/console/#/signin');
  location.reload();
}

/** `/accounts/<a>/projects/<p>/<rest>` of the signed-in project. */
export function projectPath(rest: string): string {
  const s = session();
  if (!s) throw new Error('not signed in');
  return `/accounts/${encodeURIComponent(s.account)}/projects/${encodeURIComponent(s.project)}/${rest}`;
}

/** `/accounts/<a>/data<path>` of a data item of the signed-in account (path starts with /). */
export function dataPath(path: string): string {
  const s = session();
  if (!s) throw new Error('not signed in');
  return `/accounts/${encodeURIComponent(s.account)}/data${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** A path in the signed-in project, or in another account's default project (the public account's tools and workflows). */
export function ownerPath(owner: string | undefined, rest: string): string {
  return owner && owner !== session()?.account ? `/accounts/${encodeURIComponent(owner)}/projects/default/${rest}` : projectPath(rest);
}
