import type { Command } from 'commander';
import { resolveSettings, SETTING_NAMES, SETTINGS } from '../../client-config.js';
import { printJson, printTable } from '../../output.js';

/** Show a secret's last four characters only. */
export const mask = (secret: string): string => (secret.length <= 4 ? '****' : `****${secret.slice(-4)}`);

/** `gdflow config show`: the settings in force, after the environment, and where each came from. */
export function registerConfigShow(config: Command): void {
  config
    .command('show')
    .description('show the settings in force for a profile (secret masked) and where each comes from')
    .option('--profile <name>', 'profile to show [GDFLOW_PROFILE]')
    .option('--json', 'print JSON')
    .action((flags: { profile?: string; json?: boolean }) => {
      const settings = resolveSettings({ profile: flags.profile });
      const shown = SETTING_NAMES.map((name) => {
        const value = settings.values[name];
        return {
          setting: name,
          value: value === undefined ? null : name === 'access_key_secret' ? mask(value) : value,
          source: settings.sources[name] === 'env' ? SETTINGS[name].env : (settings.sources[name] ?? null),
        };
      });
      if (flags.json)
        return printJson({
          profile: settings.profile,
          file: settings.file,
          settings: Object.fromEntries(shown.map((s) => [s.setting, { value: s.value, source: s.source }])),
        });
      process.stdout.write(`profile ${settings.profile} (${settings.file})\n`);
      printTable(shown, [
        { header: 'setting', value: (s) => s.setting },
        { header: 'value', value: (s) => s.value ?? (s.setting === 'project' ? '(default)' : s.setting === 'account' ? "(the key's account)" : '(not set)') },
        { header: 'from', value: (s) => s.source },
      ]);
    });
}
