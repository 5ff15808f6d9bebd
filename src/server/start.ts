import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { DataService } from '../domain/data/service.js';
import { createServices, type Services } from '../domain/services.js';
import { DataStore } from '../data/index.js';
import { Engine } from '../engine/engine.js';
import { createExecutor } from '../engine/executors/index.js';
import { Layout } from '../engine/layout.js';
import { openStore } from '../store/open.js';
import { buildApp } from './app.js';
import { SignedLogLinks } from './log-links.js';
import { createLogger } from './logger.js';

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  engine: Engine;
  layout: Layout;
  /** http://host:port the server listens on. */
  url: string;
  close(): Promise<void>;
}

/** Open the store (migrating it), start the engine (recovering unfinished tasks), build the app and listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore({ database: config.database, dataDir: config.dataDir });
  const layout = new Layout(config.dataDir);
  const dataStore = new DataStore(layout.storeRoot);
  // Jobs see their own directories only: the rest of the data root is hidden from the sandbox.
  const launcher = config.launcher === 'auto' ? {} : { launcher: config.launcher };
  const executor = config.executor === 'bwrap' ? createExecutor('bwrap', { hidePaths: [config.dataDir], ...launcher }) : createExecutor('host', launcher);
  const logger = createLogger(config.logLevel);
  const engine = new Engine({
    store,
    dataStore,
    executor,
    layout,
    cpus: config.cpus,
    memoryMb: Math.floor(config.memory / (1024 * 1024)),
    jobTimeoutSeconds: config.jobTimeout,
    log: (level, message, fields) => logger[level](fields ?? {}, message),
  });
  const links = new SignedLogLinks(store, layout, config.logUrlTtl);
  const services = createServices(store, {
    engine,
    data: new DataService(dataStore, config.uploadLimit),
    catalog: { stat: (ref) => dataStore.stat(ref) },
    logs: links,
  });
  await services.accounts.bootstrap();
  const app = await buildApp({
    services,
    logLinks: links,
    layout,
    lookupKey: (id) => store.getAccessKey(id),
    peekKey: store.peekAccessKey ? (id) => store.peekAccessKey!(id) : undefined,
    cacheGeneration: store.cacheGeneration ? () => store.cacheGeneration!() : undefined,
    bodyLimit: config.bodyLimit,
    clockSkewSeconds: config.clockSkew,
    publicUrl: config.publicUrl,
    logger,
  });
  try {
    await engine.start();
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await engine.stop();
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
    engine,
    layout,
    url: `http://${host}:${port}`,
    close() {
      closing ??= (async () => {
        await app.close();
        await engine.stop();
        await store.close();
      })();
      return closing;
    },
  };
}
