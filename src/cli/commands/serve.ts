import type { Command } from 'commander';
import { loadConfig, OPTIONS, type Config, type OptionName } from '../../config/config.js';
import { ListenError } from '../../server/listener.js';
import { startServer, type RunningServer } from '../../server/start.js';
import { usageError } from '../exit.js';

/** `gdflow serve`: run the API server (and, with it, the task engine) on the configured store. */
export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description(
      'start the gdflow server: the API and a worker that runs jobs (see --role), on the embedded SQLite store or PostgreSQL (settings: defaults < --config file < GDFLOW_* environment < flags)',
    )
    .option('--config <file>', 'YAML or JSON config file (also GDFLOW_CONFIG)');
  for (const [name, spec] of Object.entries(OPTIONS)) {
    command.option(`${spec.flag} <value>`, `${spec.description} [${spec.env}]`);
    void name;
  }
  command.action(async (flags: Record<string, string | undefined>) => {
    const config = loadConfig({ flags: flagsToOptions(flags), configFile: flags.config });
    let server: RunningServer;
    try {
      server = await startServer(config);
    } catch (error) {
      // A taken port, a privileged one, an address not of this machine: the operator's to change (exit code 2).
      if (error instanceof ListenError) throw usageError(error.message);
      throw error;
    }
    // Stdout is JSON lines only (pino). Starting and stopping are said at level info even when the log level is
    // higher (warn, error): scripts and tests wait for 'listening on'; only 'silent' silences them.
    const lifecycle = config.logLevel === 'silent' ? server.logger : server.logger.child({}, { level: 'info' });
    const { msg, ...fields } = listeningLine(server, config);
    lifecycle.info(fields, msg);
    const stop = (signal: string) => {
      lifecycle.info({ signal }, `${signal}: shutting down`);
      // SIGTERM drains (a rolling restart); a second signal, or SIGINT, stops at once.
      const drainMs = signal === 'SIGTERM' ? config.drainTimeout * 1000 : 0;
      process.once('SIGTERM', () => void server.close());
      process.once('SIGINT', () => void server.close());
      server.shutdown(drainMs).then(
        () => process.exit(0),
        (error: unknown) => {
          lifecycle.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

/** The start line: where it listens, and what it is (role, executor, store, version), as text and as fields. */
function listeningLine(server: RunningServer, config: Config): Record<string, string> & { msg: string } {
  const worker = server.engine?.status().worker;
  const executor = config.role === 'api' ? 'none' : config.executor;
  const fields = {
    url: server.url,
    role: config.role,
    executor,
    store: server.store.kind,
    database: server.store.where,
    version: server.version,
    ...(worker ? { worker } : {}),
    dataDir: config.dataDir,
  };
  const said = [
    `role ${config.role}`,
    `executor ${executor}`,
    `store ${server.store.kind} ${server.store.where}`,
    `gdflow ${server.version}`,
    ...(worker ? [`worker ${worker}`] : []),
    `data ${config.dataDir}`,
  ];
  return { ...fields, msg: `gdflow listening on ${server.url} (${said.join(', ')})` };
}

/** Commander names options by their camel-cased flag; map them back to config option names. */
export function flagsToOptions(flags: Record<string, string | undefined>): Partial<Record<OptionName, string>> {
  const result: Partial<Record<OptionName, string>> = {};
  for (const [name, spec] of Object.entries(OPTIONS) as Array<[OptionName, { flag: string }]>) {
    const key = spec.flag.replace(/^--/, '').replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const value = flags[key];
    if (value !== undefined) result[name] = value;
  }
  return result;
}
