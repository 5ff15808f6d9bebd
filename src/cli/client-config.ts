import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { ClientOptions } from '../client/client.js';
import { readCaFile } from '../client/trusted-fetch.js';
import { usageError } from './exit.js';

/**
 * The CLI's own settings: where the server is and which key signs requests. They live in
 * `~/.gdflow/config.yml` (or `$GDFLOW_CONFIG_FILE`) as named profiles, and the GDFLOW_*
 * variables below override the chosen profile. The file holds access key secrets, so it is
 * written readable by its owner only and refused when anyone else may read it.
 *
 * Not to be confused with `GDFLOW_CONFIG`, the *server's* config file (`gdflow serve`).
 */

export const SETTINGS = {
  endpoint: { env: 'GDFLOW_ENDPOINT', flag: '--endpoint', description: 'server URL, e.g. http://127.0.0.1:8080' },
  access_key_id: { env: 'GDFLOW_ACCESS_KEY_ID', flag: '--access-key-id', description: 'access key id' },
  access_key_secret: { env: 'GDFLOW_ACCESS_KEY_SECRET', flag: '--access-key-secret', description: 'access key secret' },
  account: { env: 'GDFLOW_ACCOUNT', flag: '--account', description: "account to address (default: the key's own account)" },
  project: { env: 'GDFLOW_PROJECT', flag: '--project', description: "project of tools, workflows and tasks (default: 'default')" },
  ca_file: {
    env: 'GDFLOW_CA_FILE',
    flag: '--ca-file',
    description: 'PEM file of a CA to trust for an https:// endpoint (a private CA), besides the usual ones',
  },
} as const;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];
export type Profile = Partial<Record<SettingName, string>>;

export interface ConfigFile {
  default_profile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.GDFLOW_CONFIG_FILE || join(homedir(), '.gdflow', 'config.yml');
}

/** Refuse a file that group or others may read or write: it holds secrets. */
function checkPermissions(path: string): void {
  if (process.platform === 'win32') return;
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw usageError(
      `config file ${path} is accessible by group or others (mode ${mode.toString(8).padStart(3, '0')}); it holds access key secrets. ` +
        `Make it private with: chmod 600 ${path}`,
    );
  }
}

/** Read the config file; a missing file is an empty configuration. */
export function readConfigFile(path: string = configFilePath()): ConfigFile {
  if (!existsSync(path)) return { profiles: {} };
  checkPermissions(path);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw usageError(`config file ${path} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (raw === null || raw === undefined) return { profiles: {} };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw usageError(`config file ${path} must hold a mapping with 'profiles'`);
  const doc = raw as Record<string, unknown>;
  const profiles: Record<string, Profile> = {};
  const given = doc.profiles ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw usageError(`config file ${path}: 'profiles' must be a mapping of profile names`);
  for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null) throw usageError(`config file ${path}: profile '${name}' must be a mapping`);
    const profile: Profile = {};
    for (const [key, setting] of Object.entries(value as Record<string, unknown>)) {
      if (!(SETTING_NAMES as string[]).includes(key))
        throw usageError(`config file ${path}: profile '${name}' has unknown setting '${key}' (known: ${SETTING_NAMES.join(', ')})`);
      if (setting === null || setting === undefined) continue;
      // YAML reads `port: 8080` as a number: a scalar is taken as the text it was written as; a mapping or list is a mistake.
      if (typeof setting !== 'string' && typeof setting !== 'number' && typeof setting !== 'boolean') {
        throw usageError(
          `config file ${path}: profile '${name}' setting '${key}' must be a single value, not a ${Array.isArray(setting) ? 'list' : 'mapping'}`,
        );
      }
      profile[key as SettingName] = String(setting);
    }
    profiles[name] = profile;
  }
  const defaultProfile = doc.default_profile;
  return { ...(typeof defaultProfile === 'string' ? { default_profile: defaultProfile } : {}), profiles };
}

/** Write atomically, readable by the owner only (0600; the directory 0700 when we create it). */
export function writeConfigFile(config: ConfigFile, path: string = configFilePath()): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const text = `# gdflow client configuration: holds access key secrets, keep it private (mode 600).\n${stringifyYaml(config)}`;
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, text, { mode: 0o600 });
  // The mode given to writeFileSync is filtered by the umask; make sure it is exactly 0600.
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw usageError(`profile name '${name}' may contain only letters, digits, '.', '_' and '-'`);
  return name;
}

export interface ResolvedSettings {
  profile: string;
  file: string;
  values: Profile;
  /** Where each value came from: `file`, `env` or `flag`. */
  sources: Partial<Record<SettingName, 'file' | 'env' | 'flag'>>;
}

/**
 * Settings in layers: the profile of the file < GDFLOW_* environment < command-line flags.
 * The profile: `--profile`, else GDFLOW_PROFILE, else the file's default_profile, else `default`.
 */
export function resolveSettings(options: { profile?: string | undefined; flags?: Profile; env?: NodeJS.ProcessEnv } = {}): ResolvedSettings {
  const env = options.env ?? process.env;
  const file = configFilePath(env);
  const config = readConfigFile(file);
  const profile = options.profile || env.GDFLOW_PROFILE || config.default_profile || DEFAULT_PROFILE;
  const explicit = Boolean(options.profile || env.GDFLOW_PROFILE);
  if (explicit && !config.profiles[profile]) {
    const known = Object.keys(config.profiles);
    throw usageError(
      `profile '${profile}' is not in ${file} (${known.length ? `known: ${known.join(', ')}` : 'it has no profiles'}); create it with: gdflow config set --profile ${profile} --endpoint URL ...`,
    );
  }
  const values: Profile = {};
  const sources: ResolvedSettings['sources'] = {};
  for (const name of SETTING_NAMES) {
    const layers: Array<['file' | 'env' | 'flag', string | undefined]> = [
      ['file', config.profiles[profile]?.[name]],
      ['env', env[SETTINGS[name].env]],
      ['flag', options.flags?.[name]],
    ];
    for (const [source, value] of layers) {
      if (value !== undefined && value !== '') {
        values[name] = value;
        sources[name] = source;
      }
    }
  }
  return { profile, file, values, sources };
}

/** Client options from resolved settings; exit 2 naming what is missing and how to set it. */
export function clientOptions(settings: ResolvedSettings): ClientOptions {
  const missing = (['endpoint', 'access_key_id', 'access_key_secret'] as const).filter((name) => !settings.values[name]);
  if (missing.length > 0) {
    throw usageError(
      `no ${missing.join(', ')} configured for profile '${settings.profile}'. Set ${missing.length > 1 ? 'them' : 'it'} with ` +
        `'gdflow config set ${missing.map((m) => `${SETTINGS[m].flag} <value>`).join(' ')}' or the environment (${missing.map((m) => SETTINGS[m].env).join(', ')})`,
    );
  }
  const endpoint = settings.values.endpoint!;
  if (!/^https?:\/\/[^/]+/.test(endpoint)) throw usageError(`endpoint '${endpoint}' is not an http:// or https:// URL`);
  const caFile = settings.values.ca_file;
  let ca: string | undefined;
  if (caFile) {
    try {
      ca = readCaFile(caFile);
    } catch (error) {
      throw usageError(`${error instanceof Error ? error.message : String(error)} (ca_file of profile '${settings.profile}', GDFLOW_CA_FILE or --ca-file)`);
    }
  }
  return {
    endpoint,
    ...(ca !== undefined ? { ca } : {}),
    accessKeyId: settings.values.access_key_id!,
    accessKeySecret: settings.values.access_key_secret!,
    ...(settings.values.account ? { account: settings.values.account } : {}),
    ...(settings.values.project ? { project: settings.values.project } : {}),
  };
}
