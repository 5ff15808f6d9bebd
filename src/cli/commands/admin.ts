import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { createCoreServices, type CoreServices } from '../../domain/services.js';
import { openStore } from '../../store/open.js';

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
  const admin = program.command('admin').description('manage accounts, projects and access keys (acts on the store directly)');
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
}
