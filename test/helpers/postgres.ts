/**
 * A throwaway PostgreSQL cluster for tests: started once per test process (initdb and pg_ctl on a
 * free port in a temporary directory, listening on 127.0.0.1 only, without fsync), a fresh
 * database for whoever asks, and stopped with its directory removed when the process exits.
 *
 *   const pg = await startPostgres();
 *   const url = await pg.createDatabase();   // postgres://postgres@127.0.0.1:<port>/<fresh name>
 *
 * Tests that need it pass `skip: skipWithout(postgresUnavailable())` (helpers/components.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MissingComponent } from './components.js';

export interface PostgresCluster {
  readonly port: number;
  /** The URL of a database on the cluster (default: the `postgres` maintenance database). */
  url(dbName?: string): string;
  /** Create an empty database (a fresh unique name unless given) and return its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stop the cluster and remove its directory (also done at process exit). */
  stop(): Promise<void>;
}

const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory, or undefined. */
function binDir(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((v) => existsSync(join(ROOT, v, 'bin', 'initdb')) && existsSync(join(ROOT, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(ROOT, versions[0], 'bin');
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Why PostgreSQL cannot be started here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  if (!binDir()) return `PostgreSQL is not installed (no ${ROOT}/<version>/bin/initdb; apt-get install postgresql)`;
  // PostgreSQL refuses to run as root: as root the binaries run as the postgres user.
  if (isRoot() && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to run PostgreSQL as';
  return undefined;
}

/** Run a PostgreSQL binary, as the postgres user when this process is root. */
function run(bin: string, args: string[]): Promise<void> {
  const [command, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(' ')} exited with ${code}:\n${output}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

let started: Promise<PostgresCluster> | undefined;

/** The cluster of this test process, started on first use. */
export function startPostgres(): Promise<PostgresCluster> {
  started ??= launchPostgres();
  return started;
}

/**
 * A cluster of its own. Tests run without fsync (their data is thrown away); benchmarks that compare PostgreSQL
 * with the embedded SQLite store (which syncs every commit) ask for `durable`, PostgreSQL's default settings.
 */
export async function launchPostgres(options: { durable?: boolean } = {}): Promise<PostgresCluster> {
  const missing = postgresUnavailable();
  if (missing) throw new MissingComponent(missing);
  const bin = binDir()!;
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-pg-'));
  if (isRoot()) {
    const uid = Number(spawnSync('id', ['-u', 'postgres']).stdout.toString());
    const gid = Number(spawnSync('id', ['-g', 'postgres']).stdout.toString());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const pgCtl = join(bin, 'pg_ctl');
  let running = false;
  // Stopping must also work from the synchronous 'exit' event, so it is synchronous.
  const stopSync = (): void => {
    if (running) {
      running = false;
      const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
      if (isRoot()) spawnSync('runuser', ['-u', 'postgres', '--', pgCtl, ...args], { stdio: 'ignore' });
      else spawnSync(pgCtl, args, { stdio: 'ignore' });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // A test runner that gives up on this process sends a signal: clean up, then die of it as before.
  const onSignal = (signal: NodeJS.Signals): void => {
    stopSync();
    process.kill(process.pid, signal);
  };
  const hooks = (on: boolean): void => {
    const method = on ? 'once' : 'removeListener';
    process[method]('exit', stopSync);
    process[method]('SIGINT', onSignal);
    process[method]('SIGTERM', onSignal);
  };
  hooks(true);

  try {
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    let port = 0;
    // Another process may take the free port between the probe and the start: try another.
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      const durability = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
      const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${durability}`;
      try {
        await run(pgCtl, ['-D', data, '-l', log, '-w', '-t', '30', '-o', settings, 'start']);
        running = true;
        break;
      } catch (error) {
        if (attempt >= 2) throw new Error(`${(error as Error).message}\n${existsSync(log) ? readFileSync(log, 'utf8') : ''}`, { cause: error });
      }
    }
    const url = (dbName = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${dbName}`;
    let databases = 0;
    return {
      port,
      url,
      async createDatabase(name = `test_${process.pid}_${++databases}`) {
        const client = new pg.Client({ connectionString: url() });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
        } finally {
          await client.end();
        }
        return url(name);
      },
      async stop() {
        hooks(false);
        if (running) {
          running = false;
          await run(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']);
        }
        rmSync(dir, { recursive: true, force: true });
        started = undefined;
      },
    };
  } catch (error) {
    stopSync();
    hooks(false);
    throw error;
  }
}
