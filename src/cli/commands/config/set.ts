import type { Command } from 'commander';
import { checkProfileName, configFilePath, readConfigFile, SETTING_NAMES, SETTINGS, writeConfigFile, type SettingName } from '../../client-config.js';
import { usageError } from '../../exit.js';
import { say } from '../../output.js';

const camel = (flag: string) => flag.replace(/^--/, '').replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** `gdflow config set`: write settings into a profile (created when new). */
export function registerConfigSet(config: Command): void {
  const command = config
    .command('set')
    .description('set values of a profile (the default profile unless --profile), creating it when new')
    .option('--profile <name>', 'profile to change [GDFLOW_PROFILE]')
    .option('--default', 'also make this profile the default one');
  for (const name of SETTING_NAMES) command.option(`${SETTINGS[name].flag} <value>`, SETTINGS[name].description);
  command.action((flags: Record<string, string | boolean | undefined>) => {
    const path = configFilePath();
    const file = readConfigFile(path);
    const profile = checkProfileName(String(flags.profile ?? process.env.GDFLOW_PROFILE ?? file.default_profile ?? 'default'));
    const changes: Partial<Record<SettingName, string>> = {};
    for (const name of SETTING_NAMES) {
      const value = flags[camel(SETTINGS[name].flag)];
      if (typeof value === 'string') changes[name] = value;
    }
    if (Object.keys(changes).length === 0 && !flags.default)
      throw usageError(`nothing to set: give one or more of ${SETTING_NAMES.map((n) => SETTINGS[n].flag).join(', ')}`);
    if (changes.endpoint !== undefined && !/^https?:\/\/[^/]+/.test(changes.endpoint))
      throw usageError(`--endpoint '${changes.endpoint}' is not an http:// or https:// URL`);
    file.profiles[profile] = { ...file.profiles[profile], ...changes };
    if (flags.default || !file.default_profile) file.default_profile = profile;
    writeConfigFile(file, path);
    say(
      `profile ${profile} updated in ${path}${Object.keys(changes).length ? ` (${Object.keys(changes).join(', ')})` : ''}${file.default_profile === profile ? ' [default]' : ''}`,
    );
  });
}

/** `gdflow config unset`: remove settings from a profile. */
export function registerConfigUnset(config: Command): void {
  config
    .command('unset <setting...>')
    .description(`remove settings from a profile (${SETTING_NAMES.join(', ')})`)
    .option('--profile <name>', 'profile to change [GDFLOW_PROFILE]')
    .action((settings: string[], flags: { profile?: string }) => {
      const path = configFilePath();
      const file = readConfigFile(path);
      const profile = flags.profile ?? process.env.GDFLOW_PROFILE ?? file.default_profile ?? 'default';
      const current = file.profiles[profile];
      if (!current) throw usageError(`profile '${profile}' is not in ${path}`);
      for (const setting of settings) {
        if (!(SETTING_NAMES as string[]).includes(setting)) throw usageError(`unknown setting '${setting}' (known: ${SETTING_NAMES.join(', ')})`);
        delete current[setting as SettingName];
      }
      writeConfigFile(file, path);
      say(`profile ${profile}: removed ${settings.join(', ')}`);
    });
}
