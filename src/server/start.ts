import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { createServices, type Services } from '../domain/services.js';
import { openStore } from '../store/open.js';
import { buildApp } from './app.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  /** http://host:port the server listens on. */
  url: string;
  close(): Promise<void>;
}

/** Open the store (migrating it), build the app and listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore({ database: config.database, dataDir: config.dataDir });
  const services = createServices(store);
  await services.accounts.bootstrap();
  const app = await buildApp({
    services,
    lookupKey: (id) => store.getAccessKey(id),
    bodyLimit: config.bodyLimit,
    clockSkewSeconds: config.clockSkew,
    publicUrl: config.publicUrl,
    logLevel: config.logLevel,
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    await store.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    app,
    services,
    url: `http://${host}:${port}`,
    close() {
      closing ??= (async () => {
        await app.close();
        await store.close();
      })();
      return closing;
    },
  };
}
