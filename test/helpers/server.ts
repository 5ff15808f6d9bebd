import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transport } from '../../src/client/transport.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { Services } from '../../src/domain/services.js';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { startPostgres } from './postgres.js';

/** A real gdflow server on 127.0.0.1 with a temporary data root, for one test file. */
export interface TestServer {
  url: string;
  dataDir: string;
  /** The --database it runs on: empty for the SQLite file in the data root. */
  database: string;
  server: RunningServer;
  /** The server's domain services (a test server serves the API). */
  services: Services;
  /** A new account with its default project, and a transport signing with its key. */
  account(name?: string): Promise<TestAccount>;
  close(): Promise<void>;
}

export interface TestAccount {
  name: string;
  accessKeyId: string;
  accessKeySecret: string;
  api: Transport;
}

let counter = 0;

/**
 * `GDFLOW_TEST_STORE=postgres` runs every in-process test server on a fresh database of the test
 * PostgreSQL (helpers/postgres.ts) instead of SQLite, so that the whole API suite can be run against
 * the PostgreSQL store: `GDFLOW_TEST_STORE=postgres npm test`.
 */
async function testDatabase(): Promise<string> {
  if (process.env.GDFLOW_TEST_STORE !== 'postgres') return '';
  return (await startPostgres()).createDatabase();
}

export async function startTestServer(overrides: Partial<Record<keyof Config, string | number>> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gdflow-test-'));
  const database = await testDatabase();
  const config = loadConfig({ env: {}, flags: { port: 0, dataDir, logLevel: process.env.GDFLOW_TEST_LOG ?? 'silent', database, ...overrides } });
  const server = await startServer(config);
  const services = server.services!;
  return {
    url: server.url,
    dataDir,
    database,
    server,
    services,
    async account(name?: string) {
      const accountName = name ?? `acct${process.pid}x${++counter}`;
      const { key } = await services.accounts.createAccount(accountName);
      return {
        name: accountName,
        accessKeyId: key.id,
        accessKeySecret: key.secret,
        api: new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret }, retries: 0 }),
      };
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Path of a project's collection: `/accounts/<a>/projects/<p>/<rest>`. */
export const projectPath = (account: string, rest: string, project = 'default'): string =>
  `/accounts/${encodeURIComponent(account)}/projects/${encodeURIComponent(project)}/${rest}`;
