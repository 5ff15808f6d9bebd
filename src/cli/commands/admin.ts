import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { createCoreServices, type CoreServices } from '../../domain/services.js';
import { openStore } from '../../store/open.js';
import type { AuditRecord } from '../../store/store.js';
import { usageError } from '../exit.js';
import { formatTable } from '../output.js';
import { parseSince } from '../since.js';

/**
 * `gdflow admin ...`: operator commands that act on the store directly, SQLite or PostgreSQL (no
 * server needed; safe beside running servers, which notice their writes: docs/api.md, Consistency).
 */
async function withServices<T>(flags: { dataDir?: string; database?: string; config?: string }, fn: (services: CoreServices) => Promise<T>): Promise<T> {
  const config = loadConfig({ flags: { dataDir: flags.dataDir, database: flags.database }, configFile: flags.config });
  const store = await openStore({ database: config.database, dataDir: config.dataDir });
  try {
    const services = createCoreServices(store);
    await services.accounts.bootstrap();
    return await fn(services);
  } finally {
    await store.close();
  }
}

const print = (json: boolean, value: unknown, text: string): void => {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
};

export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('manage accounts, projects and access keys, read the audit log (acts on the store directly)');
  const common = (c: Command) =>
    c
      .option('--data-dir <dir>', 'data root [GDFLOW_DATA_DIR]')
      .option('--database <url>', 'database [GDFLOW_DATABASE]')
      .option('--config <file>', 'config file [GDFLOW_CONFIG]')
      .option('--json', 'print JSON');

  common(admin.command('create-account <name>').description("create an account with its 'default' project and print a new access key"))
    .option('--user <name>', 'user name the key belongs to (default: the account name)')
    .action(async (name: string, flags) => {
      const created = await withServices(flags, (s) => s.accounts.createAccount(name, flags.user));
      const value = { account_name: created.account.name, access_key_id: created.key.id, access_key_secret: created.key.secret };
      print(flags.json, value, `account ${value.account_name} created with project default\naccess_key_id:     ${value.access_key_id}\naccess_key_secret: ${value.access_key_secret}`);
    });

  common(admin.command('create-project <account> <project>').description('create another project in an account')).action(async (account: string, project: string, flags) => {
    const created = await withServices(flags, (s) => s.accounts.createProject(account, project));
    print(flags.json, { account_name: created.accountName, project_name: created.name }, `project ${created.accountName}/${created.name} created`);
  });

  common(admin.command('create-key <account>').description('create another access key for an account'))
    .option('--user <name>', 'user name the key belongs to (default: the account name)')
    .action(async (account: string, flags) => {
      const key = await withServices(flags, (s) => s.accounts.createKey(account, flags.user));
      const value = { account_name: key.accountName, access_key_id: key.id, access_key_secret: key.secret };
      print(flags.json, value, `access_key_id:     ${key.id}\naccess_key_secret: ${key.secret}`);
    });

  common(admin.command('revoke-key <access_key_id>').description('revoke an access key; requests signed with it are refused at once')).action(async (id: string, flags) => {
    await withServices(flags, (s) => s.accounts.revokeKey(id));
    print(flags.json, { access_key_id: id, status: 'revoked' }, `access key ${id} revoked`);
  });

  common(admin.command('list-accounts').description('list accounts with their projects and keys (secrets are not shown)')).action(async (flags) => {
    const accounts = await withServices(flags, (s) => s.accounts.listAccounts());
    const value = accounts.map(({ account, projects, keys }) => ({
      account_name: account.name,
      projects: projects.map((p) => p.name),
      keys: keys.map((k) => ({ access_key_id: k.id, user_name: k.userName, status: k.status })),
    }));
    const lines = value.map((a) => `${a.account_name.padEnd(24)} projects: ${a.projects.join(', ') || '-'}  keys: ${a.keys.map((k) => `${k.access_key_id}${k.status === 'revoked' ? ' (revoked)' : ''}`).join(', ') || '-'}`);
    print(flags.json, value, lines.join('\n'));
  });

  common(admin.command('audit').description('show the audit log: who made or was refused which write, oldest first (docs/operating.md)'))
    .option('--account <name>', 'only entries whose actor or target account is this one')
    .option('--since <time>', 'only entries from this time: ISO 8601 (2026-11-24T09:00Z) or a duration back from now (30m, 1h, 2d)')
    .option('--limit <n>', 'at most this many entries, the newest kept', '1000')
    .addHelpText('after', '\nColumns: time, outcome (ok or the error code), operation, actor (account/key, or admin and the operator\'s user), request id, target (with the reason of a refusal).')
    .action(async (flags) => {
      const since = flags.since === undefined ? undefined : parseSince(flags.since);
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError(`--limit '${flags.limit}' is not a positive integer`);
      const entries = await withServices(flags, (s) => s.store.listAudit({ ...(flags.account !== undefined ? { account: flags.account } : {}), ...(since !== undefined ? { since } : {}), limit }));
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
});

const AUDIT_COLUMNS = [
  { header: 'time', value: (e: AuditRecord) => new Date(e.at * 1000).toISOString().replace(/\.\d+Z$/, 'Z') },
  { header: 'outcome', value: (e: AuditRecord) => e.outcome },
  { header: 'operation', value: (e: AuditRecord) => e.operation },
  { header: 'actor', value: (e: AuditRecord) => (e.actorAccount === null ? `admin (${e.actorUser})` : `${e.actorAccount}/${e.actorKeyId ?? '-'}`) },
  { header: 'request', value: (e: AuditRecord) => e.requestId },
  { header: 'target', value: (e: AuditRecord) => (e.outcome === 'ok' ? e.target : `${e.target}: ${e.reason}`) },
];
