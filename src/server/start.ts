import { mkdirSync, realpathSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyListenOptions } from 'fastify';
import { ConfigError, retryPolicyOf, trustedProxies, type Config } from '../config/config.js';
import { DataStore } from '../data/index.js';
import { DataService } from '../domain/data/service.js';
import { createServices, type Services } from '../domain/services.js';
import type { TesStagingPolicy } from '../domain/tes/locations.js';
import { FetchHosts } from '../domain/ga4gh/fetch-hosts.js';
import {
  CallCache,
  createCwlResolver,
  createWdlResolver,
  createExecutor,
  createJavaScriptSandbox,
  DataStoreLocations,
  defaultWorkerId,
  FileJobLogs,
  Layout,
  RemoteFetch,
  removeTaskFiles,
  tesFiles,
  Worker,
  type Executor,
  type JavaScriptSandbox,
} from '../engine/index.js';
import { openStore } from '../store/open.js';
import { describeStore, parseDatabase, type StoreDescription } from '../store/location.js';
import { packageVersion } from '../package-root.js';
import type { Store } from '../store/store.js';
import { Metrics } from '../metrics/metrics.js';
import { buildApp, trustProxyOption } from './app.js';
import { registerMetricsRoute } from './metrics-route.js';
import { SignedLogLinks } from './log-links.js';
import { LinkSigner } from './link-signer.js';
import { SignedWdlFileLinks } from './wdl-file-links.js';
import { createLogger, type Logger } from './logger.js';
import { reservePort, restoreAcceptBacklog, type Reservation } from './listener.js';

export interface RunningServer {
  app: FastifyInstance;
  /** The domain services (absent on a worker, which serves no API). */
  services: Services | undefined;
  /** The worker (absent on an API replica, which runs no jobs). */
  engine: Worker | undefined;
  layout: Layout;
  /** http://host:port the server listens on. */
  url: string;
  /** Where the server's JSON lines go (stdout). */
  logger: Logger;
  /** Which store it runs on (SQLite file or PostgreSQL database, without the password). */
  store: StoreDescription;
  /** gdflow's version (package.json). */
  version: string;
  /** Stop at once: running jobs are killed and run again wherever their tasks go next. */
  close(): Promise<void>;
  /**
   * Stop as on SIGTERM: finish the requests in flight, let running jobs finish for up to `drainMs`, then kill
   * what is left and give its tasks back.
   */
  shutdown(drainMs: number): Promise<void>;
}

/** How long the counts of tasks and jobs by state are reused between scrapes (one grouped query at most this often). */
const STATE_COUNTS_MS = 2000;

/** `read` at most every `ms`: callers meanwhile share the last answer (or the read in flight). */
function briefly<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= ms) {
      const value = read();
      last = { at: now, value };
      // A failed read is not reused.
      value.catch(() => {
        if (last?.value === value) last = undefined;
      });
    }
    return last.value;
  };
}

/** The configured executor. */
export function configuredExecutor(config: Config): Executor {
  // Jobs see their own directories only: the rest of the data root is hidden from the sandbox.
  const launcher = config.launcher === 'auto' ? {} : { launcher: config.launcher };
  const sandbox = { hidePaths: [config.dataDir], ...launcher };
  switch (config.executor) {
    case 'bwrap':
      return createExecutor('bwrap', sandbox);
    case 'host':
      return createExecutor('host', launcher);
    case 'podman':
    case 'docker':
      return createExecutor(config.executor, {
        pullPolicy: config.pullPolicy,
        ...(config.containerRuntime ? { runtime: config.containerRuntime } : {}),
        hostSandbox: sandbox,
      });
    case 'slurm':
      return createExecutor('slurm', {
        ...(config.slurmPartition ? { partition: config.slurmPartition } : {}),
        ...(config.slurmAccount ? { account: config.slurmAccount } : {}),
        ...(config.slurmQos ? { qos: config.slurmQos } : {}),
        extraArgs: config.slurmArgs.split(/\s+/).filter(Boolean),
        wrap: config.slurmWrap,
        pollMs: config.slurmPollMs,
        queueMs: config.slurmQueueMs,
        submitPerSecond: config.slurmSubmitRate,
        maxQueued: config.slurmMaxQueued,
        bwrap: sandbox,
        host: launcher,
        container: { pullPolicy: config.pullPolicy, ...(config.containerRuntime ? { runtime: config.containerRuntime } : {}), hostSandbox: sandbox },
      });
  }
}

/** Directories of a comma-separated option as real paths (a root that does not exist allows nothing). */
const realRoots = (list: string): string[] =>
  list
    .split(',')
    .map((root) => root.trim())
    .filter((root) => root !== '')
    .flatMap((root) => {
      try {
        return [realpathSync(root)];
      } catch {
        return [];
      }
    });

/** What TES tasks may reach (docs/ga4gh.md): file:// roots as real paths, and the hosts http(s) inputs come from. */
const tesPolicy = (config: Config): TesStagingPolicy => ({
  fileRoots: realRoots(config.tesFileRoots),
  outputRoots: realRoots(config.tesOutputRoots),
  fetchHosts: FetchHosts.parse(config.fetchHosts),
});

/** Whether the configured executor runs a job that names an image in a container of it. */
const runsContainers = (config: Config): boolean =>
  config.executor === 'podman' || config.executor === 'docker' || (config.executor === 'slurm' && config.slurmWrap === 'podman');

function startEngine(config: Config, store: Store, layout: Layout, dataStore: DataStore, logger: Logger, metrics: Metrics, sandbox: JavaScriptSandbox): Worker {
  const executor = configuredExecutor(config);
  return new Worker({
    resolvers: { cwl: createCwlResolver({ dataStore, layout, evaluator: sandbox }), wdl: createWdlResolver({ dataStore, layout }) },
    containers: runsContainers(config),
    remote: new RemoteFetch(FetchHosts.parse(config.fetchHosts)),
    store,
    dataStore,
    executor,
    layout,
    workerId: config.workerId || defaultWorkerId(),
    cpus: config.cpus,
    memoryMb: Math.floor(config.memory / (1024 * 1024)),
    jobTimeoutSeconds: config.jobTimeout,
    leaseSeconds: config.leaseTtl,
    retry: retryPolicyOf(config),
    callCaching: config.callCaching !== 'off',
    cleanupIntermediates: config.cleanupIntermediates === 'on',
    log: (level, message, fields) => logger[level](fields ?? {}, message),
    onJobEnded: (result) => metrics.jobEnded(result.outcome, result.exitCode, result.endedAt - result.startedAt),
  });
}

/**
 * Bind the port, then open the store (migrating it), build the app and take the port over; in the roles that run
 * jobs, start the worker, which claims unfinished tasks from the store (those of an earlier run of this server
 * included). The port comes first: a port already taken is said before anything is created (the data root, the
 * database file).
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const location = parseDatabase(config.database);
  if ('problem' in location) throw new ConfigError([`database: ${location.problem}`]);
  const reservation = await reservePort(config.host, config.port);
  let listening = false;
  try {
    return await startOn(reservation, describeStore(location, config.dataDir), config, () => (listening = true));
  } catch (error) {
    // Until the server listens on it, the socket is the reservation's to close.
    if (!listening) await reservation.release();
    throw error;
  }
}

async function startOn(reservation: Reservation, storeDescription: StoreDescription, config: Config, onListening: () => void): Promise<RunningServer> {
  mkdirSync(config.dataDir, { recursive: true });
  // The metrics' sources (the store, the engine) exist only below: they are read through these at scrape time.
  let sources: { store?: Store; engine?: Worker } = {};
  const metrics = new Metrics(
    {
      stateCounts: briefly(STATE_COUNTS_MS, () => sources.store!.stateCounts()),
      ...(config.role === 'api' ? {} : { worker: () => sources.engine!.status() }),
    },
    { executor: config.executor },
  );
  const store = await openStore({ database: config.database, dataDir: config.dataDir, onQuery: (sql, ms) => metrics.storeQuery(sql, ms) });
  const layout = new Layout(config.dataDir);
  const dataStore = new DataStore(layout.dataStoreRoot);
  const logger = createLogger(config.logLevel);
  // CWL expressions of the jobs this process resolves run here (docs/cwl.md, "The JavaScript sandbox").
  const sandbox = createJavaScriptSandbox({ timeLimitMs: Math.min(Math.max(config.expressionTimeout, 1), 3600) * 1000 });
  const engine = config.role === 'api' ? undefined : startEngine(config, store, layout, dataStore, logger, metrics, sandbox);
  sources = { store, ...(engine ? { engine } : {}) };
  const metricsRoute = { metrics, token: config.metricsToken };
  const proxies = trustedProxies(config.trustProxy);
  const trustProxy = 'addresses' in proxies ? proxies.addresses : [];
  const version = packageVersion();
  // What a probe or an operator needs to tell processes apart: what it does, how it runs jobs, on which kind of store,
  // which release. An API replica runs no jobs: it has no executor.
  const identity = { role: config.role, version, executor: config.role === 'api' ? null : config.executor, store: storeDescription.kind };
  const health = () => ({ ...identity, ...(engine ? engine.status() : {}) });
  let services: Services | undefined;
  let app: FastifyInstance;
  if (config.role === 'worker') {
    // A worker serves its health and its metrics only: load balancers, orchestrators and Prometheus probe it.
    app = Fastify({ logger: false, trustProxy: trustProxyOption(trustProxy) });
    registerMetricsRoute(app, metricsRoute);
    app.get('/healthz', () => ({ status: 'ok', ...health() }));
  } else {
    // Hits decided at activation read their logs through cached_from (docs/tasks.md, "Call caching").
    const jobLogs = new FileJobLogs(layout, store);
    const signer = new LinkSigner(store, config.logUrlTtl);
    const links = new SignedLogLinks(signer, jobLogs);
    const wdlFiles = new SignedWdlFileLinks(signer);
    const policy = tesPolicy(config);
    services = createServices(store, {
      files: { handOver: (taskId) => jobLogs.handOver(taskId), remove: (taskId) => removeTaskFiles(layout, taskId) },
      data: new DataService(dataStore, config.uploadLimit, store),
      catalog: { stat: (ref) => dataStore.stat(ref) },
      logs: links,
      wdlFiles,
      locations: new DataStoreLocations(dataStore),
      tes: { files: tesFiles(layout, dataStore), policy },
      // WES's workflow_url and TES's inputs come from the same --fetch-hosts.
      remote: new RemoteFetch(policy.fetchHosts),
      // Hits are decided at activation (docs/tasks.md, "Call caching") by a process that runs jobs too, with its own
      // worker's settings, where the executor resolves no image digest (host, bwrap). An API replica knows neither
      // the workers' executor nor their --call-caching: it leaves every job to them.
      ...(config.role === 'all' && !runsContainers(config)
        ? {
            cache: {
              files: new CallCache(store, dataStore, layout),
              enabled: config.callCaching !== 'off',
              cleanupIntermediates: config.cleanupIntermediates === 'on',
            },
          }
        : {}),
    });
    await services.accounts.bootstrap();
    app = await buildApp({
      services,
      logLinks: links,
      wdlFileLinks: wdlFiles,
      jobLogs,
      lookupKey: (id) => store.getAccessKey(id),
      peekKey: store.peekAccessKey ? (id) => store.peekAccessKey!(id) : undefined,
      cacheGeneration: store.cacheGeneration ? () => store.cacheGeneration!() : undefined,
      bodyLimit: config.bodyLimit,
      clockSkewSeconds: config.clockSkew,
      publicUrl: config.publicUrl,
      trustProxy,
      logger,
      health,
      metrics: metricsRoute,
    });
  }
  try {
    await engine?.start();
    // The bound socket is taken over as it is (listener.ts); Fastify still needs the host to decide on extra
    // bindings (localhost: its IPv4 and IPv6 addresses). Taking it over listens again with Node's backlog of 511,
    // whatever the options say: restoreAcceptBacklog sets ACCEPT_BACKLOG again.
    const listen = { host: config.host, handle: reservation.handle } as FastifyListenOptions;
    await app.listen(listen);
    restoreAcceptBacklog(reservation);
    onListening();
  } catch (error) {
    await engine?.stop();
    await app.close();
    await sandbox.close();
    await store.close();
    throw error;
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  const shutdown = (drainMs: number) => {
    closing ??= (async () => {
      // In-flight requests finish (Fastify's close waits for them) while the worker drains.
      await Promise.all([app.close(), engine?.drain(drainMs)]);
      await sandbox.close();
      await store.close();
    })();
    return closing;
  };
  return {
    app,
    services,
    engine,
    layout,
    url: `http://${host}:${reservation.port}`,
    logger,
    store: storeDescription,
    version,
    close: () => shutdown(0),
    shutdown,
  };
}
