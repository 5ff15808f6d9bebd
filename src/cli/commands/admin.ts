import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, loadConfig, type Config } from '../../config/config.js';
import { createCoreServices, type CoreServices } from '../../domain/services.js';
import { describeStore, parseDatabase, type StoreDescription } from '../../store/location.js';
import { openStore } from '../../store/open.js';
import { storeExists } from '../../store/probe.js';
import type { AuditRecord } from '../../store/store.js';
import { parseTokenLife } from '../../domain/tokens.js';
import { InvalidInput } from '../../domain/errors.js';
import { usageError } from '../exit.js';
import { formatTable } from '../output.js';
import { parseSince } from '../since.js';

/**
 * `gdflow admin ...`: operator commands that act on the store directly, SQLite or PostgreSQL (no
 * server needed; safe beside running servers, which notice their writes: docs/api.md, Consistency).
 * They never make a store by accident: each says on stderr which one it opens, and refuses a place that holds
 * none unless told to create it (`gdflow admin init`, or --create).
 */

interface StoreFlags {
  dataDir?: string;
  database?: string;
  config?: string;
  create?: boolean;
  /** Print JSON instead of text (every admin command has --json). */
  json?: boolean;
}

/** create-account and create-key: whose name the new key carries. */
type KeyFlags = StoreFlags & { user?: string };
/** create-token: the expiry has a default, so it is always there. */
type TokenFlags = KeyFlags & { project?: string; expires: string };
/** audit: Commander gives option values as the strings typed (the limit has a default, so it is always there). */
type AuditFlags = StoreFlags & { account?: string; since?: string; limit: string };

const STORE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;

/** Where the data directory came from, for the message that says there is no store in it. */
function dataDirOrigin(flags: StoreFlags, config: Config): string {
  if (flags.dataDir !== undefined) return '--data-dir';
  if (process.env.GDFLOW_DATA_DIR) return 'GDFLOW_DATA_DIR';
  if (config.configFile && config.dataDir !== resolve('./gdflow-data')) return `dataDir in ${config.configFile}`;
  return 'the default: ./gdflow-data in the current directory';
}

function noStore(store: StoreDescription, flags: StoreFlags, config: Config): Error {
  const create = "To make a new, empty store there, run 'gdflow admin init' (with the same options) or add --create.";
  if (store.kind === 'postgres') {
    return usageError(
      `the PostgreSQL database ${store.where} holds no gdflow store (no gdflow tables). Is --database (GDFLOW_DATABASE, database in the config file) the one your servers use? ${create}`,
    );
  }
  return usageError(
    `there is no gdflow store at ${store.where} (data directory ${config.dataDir}, from ${dataDirOrigin(flags, config)}). ` +
      `Point to your server's store with --data-dir DIR, GDFLOW_DATA_DIR, --config FILE or --database. ${create}`,
  );
}

/** Open the configured store, saying which (on stderr: stdout stays the command's own, --json included). */
async function openAdminStore(
  flags: StoreFlags,
  mode: 'existing' | 'create',
): Promise<{ services: CoreServices; close: () => Promise<void>; store: StoreDescription; created: boolean }> {
  const config = loadConfig({ flags: { dataDir: flags.dataDir, database: flags.database }, configFile: flags.config });
  const location = parseDatabase(config.database);
  if ('problem' in location) throw new ConfigError([`database: ${location.problem}`]);
  const store = describeStore(location, config.dataDir);
  process.stderr.write(`gdflow admin: ${STORE_NAMES[store.kind]} store ${store.where}
`);
  const exists = await storeExists(location, store.where);
  if (!exists && mode === 'existing') throw noStore(store, flags, config);
  const opened = await openStore({ database: config.database, dataDir: config.dataDir });
  try {
    const services = createCoreServices(opened);
    await services.accounts.bootstrap();
    return { services, close: () => opened.close(), store, created: !exists };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

async function withServices<T>(flags: StoreFlags, fn: (services: CoreServices) => Promise<T>): Promise<T> {
  const { services, close } = await openAdminStore(flags, flags.create ? 'create' : 'existing');
  try {
    return await fn(services);
  } finally {
    await close();
  }
}

/** A domain refusal of a flag's value as a usage error (exit 2). */
function wrapDomain<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof InvalidInput) throw usageError(error.reason);
    throw error;
  }
}

const print = (json: boolean | undefined, value: unknown, text: string): void => {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
};

export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('manage accounts, projects and access keys, read the audit log (acts on the store directly)');
  const storeOptions = (c: Command) =>
    c
      .option('--data-dir <dir>', "the server's data root, whose gdflow.db is the store [GDFLOW_DATA_DIR; default ./gdflow-data]")
      .option('--database <url>', 'the store when not <data-dir>/gdflow.db: sqlite:<file> or postgres://USER@HOST:PORT/DB [GDFLOW_DATABASE]')
      .option('--config <file>', "the server's config file (dataDir, database) [GDFLOW_CONFIG]")
      .option('--json', 'print JSON');
  const common = (c: Command) => storeOptions(c).option('--create', 'create the store when there is none (by default a place without one is refused)');

  storeOptions(admin.command('init').description('create the store (SQLite file or PostgreSQL tables) if there is none, and bring its schema up to date'))
    .addHelpText('after', '\nSafe to run again: an existing store is kept as it is (and migrated to this version).')
    .action(async (flags: StoreFlags) => {
      const { close, store, created } = await openAdminStore(flags, 'create');
      await close();
      const text = created
        ? `created a new gdflow store: ${STORE_NAMES[store.kind]} ${store.where}`
        : `a gdflow store is already there: ${STORE_NAMES[store.kind]} ${store.where} (schema up to date)`;
      print(flags.json, { store: store.kind, location: store.where, created }, text);
    });

  common(admin.command('create-account <name>').description("create an account with its 'default' project and print a new access key"))
    .option('--user <name>', 'user name the key belongs to (default: the account name)')
    .action(async (name: string, flags: KeyFlags) => {
      const created = await withServices(flags, (s) => s.accounts.createAccount(name, flags.user));
      const value = { account_name: created.account.name, access_key_id: created.key.id, access_key_secret: created.key.secret };
      print(
        flags.json,
        value,
        `account ${value.account_name} created with project default\naccess_key_id:     ${value.access_key_id}\naccess_key_secret: ${value.access_key_secret}`,
      );
    });

  common(admin.command('create-project <account> <project>').description('create another project in an account')).action(
    async (account: string, project: string, flags: StoreFlags) => {
      const created = await withServices(flags, (s) => s.accounts.createProject(account, project));
      print(flags.json, { account_name: created.accountName, project_name: created.name }, `project ${created.accountName}/${created.name} created`);
    },
  );

  common(admin.command('create-key <account>').description('create another access key for an account'))
    .option('--user <name>', 'user name the key belongs to (default: the account name)')
    .action(async (account: string, flags: KeyFlags) => {
      const key = await withServices(flags, (s) => s.accounts.createKey(account, flags.user));
      const value = { account_name: key.accountName, access_key_id: key.id, access_key_secret: key.secret };
      print(flags.json, value, `access_key_id:     ${key.id}\naccess_key_secret: ${key.secret}`);
    });

  common(admin.command('revoke-key <access_key_id>').description('revoke an access key; requests signed with it are refused at once')).action(
    async (id: string, flags: StoreFlags) => {
      await withServices(flags, (s) => s.accounts.revokeKey(id));
      print(flags.json, { access_key_id: id, status: 'revoked' }, `access key ${id} revoked`);
    },
  );

  common(admin.command('create-token <account>').description('make a bearer token for the GA4GH APIs (TES, WES) and print it once (docs/ga4gh.md)'))
    .option('--project <name>', "the project the token acts in (default: the account's default project)")
    .option('--expires <duration>', 'how long it lives: 90m, 12h, 30d, 8w (at most 366d)', '30d')
    .option('--user <name>', 'user name its requests are recorded under (default: the account name)')
    .addHelpText('after', '\nClients send it as `Authorization: Bearer gdt_...`. Only its hash is stored: it cannot be shown again.')
    .action(async (account: string, flags: TokenFlags) => {
      const life = wrapDomain(() => parseTokenLife(flags.expires));
      const made = await withServices(flags, (s) =>
        s.tokens.createToken(account, {
          ...(flags.project !== undefined ? { project: flags.project } : {}),
          lifeSeconds: life,
          ...(flags.user !== undefined ? { user: flags.user } : {}),
        }),
      );
      const expires = new Date(made.expiresAt * 1000).toISOString();
      const value = { token: made.token, token_id: made.id, account_name: made.account, project_name: made.project, expires_at: expires };
      print(flags.json, value, `token:      ${made.token}\ntoken_id:   ${made.id}\nproject:    ${made.account}/${made.project}\nexpires_at: ${expires}`);
    });

  common(
    admin.command('revoke-token <token_id>').description('revoke a bearer token (by its id, or the token itself); requests bearing it are refused from now on'),
  ).action(async (id: string, flags: StoreFlags) => {
    const token = await withServices(flags, (s) => s.tokens.revokeToken(id));
    print(flags.json, { token_id: token.id, account_name: token.accountName, status: 'revoked' }, `token ${token.id} of ${token.accountName} revoked`);
  });

  common(admin.command('list-accounts').description('list accounts with their projects and keys (secrets are not shown)')).action(async (flags: StoreFlags) => {
    const accounts = await withServices(flags, (s) => s.accounts.listAccounts());
    const value = accounts.map(({ account, projects, keys }) => ({
      account_name: account.name,
      projects: projects.map((p) => p.name),
      keys: keys.map((k) => ({ access_key_id: k.id, user_name: k.userName, status: k.status })),
    }));
    const lines = value.map(
      (a) =>
        `${a.account_name.padEnd(24)} projects: ${a.projects.join(', ') || '-'}  keys: ${a.keys.map((k) => `${k.access_key_id}${k.status === 'revoked' ? ' (revoked)' : ''}`).join(', ') || '-'}`,
    );
    print(flags.json, value, lines.join('\n'));
  });

  common(admin.command('audit').description('show the audit log: who made or was refused which write, oldest first (docs/operating.md)'))
    .option('--account <name>', 'only entries whose actor or target account is this one')
    .option('--since <time>', 'only entries from this time: ISO 8601 (2026-11-24T09:00Z) or a duration back from now (30m, 1h, 2d)')
    .option('--limit <n>', 'at most this many entries, the newest kept', '1000')
    .addHelpText(
      'after',
      "\nColumns: time, outcome (ok or the error code), operation, actor (account/key, or admin and the operator's user), from (the client's address; local for admin), request id, target (with the reason of a refusal).",
    )
    .action(async (flags: AuditFlags) => {
      const since = flags.since === undefined ? undefined : parseSince(flags.since);
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError(`--limit '${flags.limit}' is not a positive integer`);
      const entries = await withServices(flags, (s) =>
        s.store.listAudit({ ...(flags.account !== undefined ? { account: flags.account } : {}), ...(since !== undefined ? { since } : {}), limit }),
      );
      if (flags.json) {
        print(true, entries.map(auditJson), '');
        return;
      }
      print(false, null, entries.length === 0 ? '(no entries)' : formatTable(entries, AUDIT_COLUMNS));
    });
}

/** An entry as `--json` prints it: snake_case like the API, the time as ISO 8601 and as seconds. */
const auditJson = (e: AuditRecord) => ({
  id: e.id,
  time: new Date(e.at * 1000).toISOString(),
  at: e.at,
  request_id: e.requestId,
  actor_account: e.actorAccount,
  actor_key_id: e.actorKeyId,
  actor_user: e.actorUser,
  account: e.account,
  operation: e.operation,
  target: e.target,
  outcome: e.outcome,
  reason: e.reason,
  client_address: e.clientAddress,
});

const AUDIT_COLUMNS = [
  { header: 'time', value: (e: AuditRecord) => new Date(e.at * 1000).toISOString().replace(/\.\d+Z$/, 'Z') },
  { header: 'outcome', value: (e: AuditRecord) => e.outcome },
  { header: 'operation', value: (e: AuditRecord) => e.operation },
  { header: 'actor', value: (e: AuditRecord) => (e.actorAccount === null ? `admin (${e.actorUser})` : `${e.actorAccount}/${e.actorKeyId ?? '-'}`) },
  { header: 'from', value: (e: AuditRecord) => e.clientAddress ?? (e.actorAccount === null ? 'local' : '-') },
  { header: 'request', value: (e: AuditRecord) => e.requestId },
  { header: 'target', value: (e: AuditRecord) => (e.outcome === 'ok' ? e.target : `${e.target}: ${e.reason}`) },
];
