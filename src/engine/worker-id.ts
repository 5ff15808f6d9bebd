import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Store } from '../store/store.js';

/** A worker's name in the store: its host and process, and a random part in case the pid is reused. */
export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** The pid in a default worker id of this host, or undefined (another host's, or a name given by the operator). */
function localPid(workerId: string): number | undefined {
  const prefix = `${hostname()}-`;
  if (!workerId.startsWith(prefix)) return undefined;
  const match = /^(\d+)-[0-9a-f]{6}$/.exec(workerId.slice(prefix.length));
  return match ? Number(match[1]) : undefined;
}

/**
 * On the embedded SQLite store every worker runs on this machine (the database is a local file), so a worker whose
 * process no longer exists is dead for sure: end its leases now, so that a server restarted after a crash takes its
 * own tasks up again at once instead of after the lease time. (A reused pid only makes this wait for the lease.)
 * Other stores are shared between machines, where a host name need not be unique: there leases simply expire.
 */
export async function expireDeadLocalWorkers(store: Store): Promise<string[]> {
  if (store.capabilities.dialect !== 'sqlite') return [];
  const dead = (await store.leaseHolders()).filter((owner) => {
    const pid = localPid(owner);
    return pid !== undefined && pid !== process.pid && !existsSync(`/proc/${pid}`);
  });
  for (const owner of dead) await store.expireLeases(owner);
  return dead;
}
