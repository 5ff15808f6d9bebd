import type { Command } from 'commander';
import { checkProfileName, configFilePath, readConfigFile, writeConfigFile } from '../../client-config.js';
import { usageError } from '../../exit.js';
import { printJson, printTable, say } from '../../output.js';

/** `gdflow config ls`: the profiles of the file. */
export function registerConfigLs(config: Command): void {
  config
    .command('ls')
    .description('list the profiles of the config file')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) => {
      const file = readConfigFile();
      const rows = Object.entries(file.profiles).map(([name, p]) => ({
        profile: name,
        default: name === file.default_profile,
        endpoint: p.endpoint ?? null,
        access_key_id: p.access_key_id ?? null,
        account: p.account ?? null,
        project: p.project ?? null,
      }));
      if (flags.json) return printJson({ default_profile: file.default_profile ?? null, profiles: rows });
      printTable(
        rows,
        [
          { header: 'profile', value: (r) => `${r.profile}${r.default ? ' *' : ''}` },
          { header: 'endpoint', value: (r) => r.endpoint },
          { header: 'access key id', value: (r) => r.access_key_id },
          { header: 'account', value: (r) => r.account },
          { header: 'project', value: (r) => r.project },
        ],
        `no profiles in ${configFilePath()}: create one with 'gdflow config set --endpoint URL --access-key-id ID --access-key-secret SECRET'`,
      );
    });
}

/** `gdflow config use <profile>`: make a profile the default. */
export function registerConfigUse(config: Command): void {
  config
    .command('use <profile>')
    .description('make a profile the default one')
    .action((profile: string) => {
      const path = configFilePath();
      const file = readConfigFile(path);
      if (!file.profiles[checkProfileName(profile)])
        throw usageError(`profile '${profile}' is not in ${path} (known: ${Object.keys(file.profiles).join(', ') || 'none'})`);
      file.default_profile = profile;
      writeConfigFile(file, path);
      say(`default profile is now ${profile}`);
    });
}

/** `gdflow config path`: where the file is. */
export function registerConfigPath(config: Command): void {
  config
    .command('path')
    .description('print the path of the config file ($GDFLOW_CONFIG_FILE or ~/.gdflow/config.yml)')
    .action(() => say(configFilePath()));
}
