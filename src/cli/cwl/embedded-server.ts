import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../../client/client.js';

/**
 * The server `gdflow cwl run` starts for itself when no server is configured, so that it also works as a standalone
 * CWL runner: in this process, on 127.0.0.1 and a port the system picks, on a temporary data root (SQLite, data
 * store, job directories) with an account and key made for the run, all removed when it ends. Server settings come
 * from the usual places (GDFLOW_EXECUTOR, GDFLOW_CONFIG, ...: docs/cwl.md), except those that would make it share
 * anything: its data root, database, address, role and logs (none: stdout is the output object's).
 */
export interface EmbeddedServer {
  readonly client: Client;
  readonly url: string;
  readonly dataDir: string;
  /** What a client of another process needs to use it: the variables `gdflow` reads (GDFLOW_ENDPOINT, ...). */
  readonly env: Readonly<Record<string, string>>;
  /** Stop the server (running jobs are killed) and remove its data root. */
  close(): Promise<void>;
}

const ACCOUNT = 'cwl';

export async function startEmbeddedServer(options: { executor?: string } = {}): Promise<EmbeddedServer> {
  // The server's modules cost most of a second to load: only a run without a configured server pays for them.
  const [{ loadConfig }, { startServer }] = await Promise.all([import('../../config/config.js'), import('../../server/start.js')]);
  const dataDir = mkdtempSync(join(tmpdir(), 'gdflow-cwl-'));
  // Also on an abrupt exit (an uncaught error, process.exit) the data root goes, and on a signal that would end the
  // process without an exit event: SIGTERM (cwltest's timeout), or SIGINT while nothing else handles it (a run being
  // followed handles it: it stops the run's task, then ends, and closes this server on its way out).
  const remove = (): void => rmSync(dataDir, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGINT' && process.listenerCount('SIGINT') > 1) return;
    remove();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const unwatch = (): void => {
    process.removeListener('exit', remove);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
  process.once('exit', remove);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const config = loadConfig({
      flags: {
        dataDir,
        database: `sqlite:${join(dataDir, 'gdflow.db')}`,
        host: '127.0.0.1',
        port: 0,
        role: 'all',
        logLevel: 'silent',
        ...(options.executor !== undefined ? { executor: options.executor } : {}),
      },
    });
    const server = await startServer(config);
    try {
      const { key } = await server.services!.accounts.createAccount(ACCOUNT);
      const client = new Client({ endpoint: server.url, accessKeyId: key.id, accessKeySecret: key.secret, account: ACCOUNT });
      let closing: Promise<void> | undefined;
      const close = (): Promise<void> => {
        closing ??= server.close().finally(() => {
          remove();
          unwatch();
        });
        return closing;
      };
      const env = { GDFLOW_ENDPOINT: server.url, GDFLOW_ACCESS_KEY_ID: key.id, GDFLOW_ACCESS_KEY_SECRET: key.secret, GDFLOW_ACCOUNT: ACCOUNT };
      return { client, url: server.url, dataDir, env, close };
    } catch (error) {
      await server.close();
      throw error;
    }
  } catch (error) {
    remove();
    unwatch();
    throw error;
  }
}
