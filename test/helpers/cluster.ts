import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transport } from '../../src/client/transport.js';
import { runCli, startServerProcess, waitForExit, type ServerChild } from './process.js';
import type { TestAccount } from './server.js';

/**
 * Several `gdflow serve` processes on one store and one data root, as a team runs them: API replicas and workers.
 * `database` is empty for the embedded SQLite file in the data root, or a postgres:// URL.
 */
export class Cluster {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'gdflow-cluster-'));
  readonly members: ServerChild[] = [];

  constructor(readonly database = '') {}

  private get databaseArgs(): string[] {
    return this.database ? ['--database', this.database] : [];
  }

  async start(role: 'all' | 'api' | 'worker', extra: string[] = []): Promise<ServerChild> {
    const member = await startServerProcess(this.dataDir, ['--role', role, ...this.databaseArgs, ...extra]);
    this.members.push(member);
    return member;
  }

  /** A new account through `gdflow admin` on the shared store, with a transport to `server`. */
  account(name: string, server: ServerChild): TestAccount & { key: { access_key_id: string; access_key_secret: string } } {
    const created = runCli(['admin', 'create-account', name, '--data-dir', this.dataDir, ...this.databaseArgs, '--json']);
    assert.equal(created.status, 0, created.stderr);
    const key = JSON.parse(created.stdout) as { access_key_id: string; access_key_secret: string };
    return { name, accessKeyId: key.access_key_id, accessKeySecret: key.access_key_secret, api: transport(server, key), key };
  }

  async stop(): Promise<void> {
    for (const member of this.members) {
      if (member.child.exitCode === null && member.child.signalCode === null) member.child.kill('SIGKILL');
      await waitForExit(member.child);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export function transport(server: ServerChild, key: { access_key_id: string; access_key_secret: string }): Transport {
  return new Transport({ endpoint: server.url, credentials: { accessKeyId: key.access_key_id, accessKeySecret: key.access_key_secret }, retries: 0 });
}

/** The same account, talking to another replica. */
export function through(account: TestAccount & { key: { access_key_id: string; access_key_secret: string } }, server: ServerChild): TestAccount {
  return { ...account, api: transport(server, account.key) };
}

/** Pids of the processes whose command line contains `needle`. */
export function processesWith(needle: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Whether `pid` descends from `ancestor` (following parent pids through /proc). */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let current = pid, hops = 0; current > 1 && hops < 64; hops++) {
    if (current === ancestor) return true;
    try {
      const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
      current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return false;
    }
  }
  return false;
}
