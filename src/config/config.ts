import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseDatabase } from '../store/location.js';
import { DEFAULT_RETRY_POLICY, readRetryPolicy, type RetryPolicy } from '../domain/tools/retry-policy.js';
import { parseSizeMb } from '../domain/tools/definition.js';
import { OPTIONS, type OptionName, type OptionSpec } from './options.js';

export { OPTIONS, type OptionName };

/**
 * Server settings in layers: defaults, then a config file, then environment variables, then
 * command-line flags. Every option is declared once in OPTIONS (which also feeds the README's
 * table and `gdflow serve --help`); every problem is reported together; nothing is read at
 * import time.
 */

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  database: string;
  role: 'all' | 'api' | 'worker';
  trustProxy: string;
  publicUrl: string;
  bodyLimit: number;
  uploadLimit: number;
  clockSkew: number;
  logLevel: string;
  executor: 'bwrap' | 'host' | 'podman' | 'docker' | 'slurm';
  containerRuntime: string;
  slurmPartition: string;
  slurmAccount: string;
  slurmQos: string;
  slurmArgs: string;
  slurmWrap: 'bwrap' | 'host' | 'podman';
  slurmPollMs: number;
  slurmQueueMs: number;
  slurmSubmitRate: number;
  slurmMaxQueued: number;
  pullPolicy: 'never' | 'missing' | 'always';
  launcher: 'auto' | 'native' | 'node';
  cpus: number;
  memory: number;
  jobTimeout: number;
  expressionTimeout: number;
  leaseTtl: number;
  drainTimeout: number;
  workerId: string;
  logUrlTtl: number;
  metricsToken: string;
  callCaching: 'on' | 'off';
  cleanupIntermediates: 'off' | 'on';
  tesFileRoots: string;
  tesOutputRoots: string;
  fetchHosts: string;
  retryMaxAttempts: number;
  retryOn: string;
  retryMemoryFactor: string;
  retryBackoff: number;
  /** Where the file layer came from, if any. */
  configFile?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
};

export function parseBytes(text: string): number | undefined {
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = UNITS[match[2]!.toLowerCase()];
  return unit === undefined ? undefined : Math.floor(Number(match[1]) * unit);
}

function coerce(name: string, spec: OptionSpec, raw: unknown, source: string, problems: string[]): string | number | undefined {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : undefined;
  if (text === undefined) {
    problems.push(`${name} (${source}) must be a string or number, not ${JSON.stringify(raw)}`);
    return undefined;
  }
  switch (spec.kind) {
    case 'string':
      return text;
    case 'enum':
      if (!spec.values!.includes(text)) problems.push(`${name} (${source}) must be one of ${spec.values!.join(', ')}, not '${text}'`);
      return text;
    case 'port':
    case 'integer':
    case 'seconds': {
      const n = Number(text);
      const max = spec.kind === 'port' ? 65535 : Number.MAX_SAFE_INTEGER;
      const min = spec.kind === 'integer' ? 1 : 0;
      if (!/^[0-9]+$/.test(text.trim()) || n < min || n > max) {
        problems.push(`${name} (${source}) must be a whole number from ${min} to ${max}, not '${text}'`);
        return undefined;
      }
      return n;
    }
    case 'size': {
      const n = parseBytes(text);
      if (n === undefined || n <= 0) {
        problems.push(`${name} (${source}) must be a size such as 1048576 or 1m, not '${text}'`);
        return undefined;
      }
      return n;
    }
  }
}

export interface ConfigSources {
  /** Flags already parsed by the CLI, keyed by option name. */
  flags?: Partial<Record<OptionName, string | number | undefined>>;
  env?: NodeJS.ProcessEnv;
  /** A config file (YAML or JSON) given with --config or GDFLOW_CONFIG. */
  configFile?: string | undefined;
}

export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const problems: string[] = [];
  const values: Record<string, string | number> = {};
  for (const [name, spec] of Object.entries(OPTIONS) as Array<[OptionName, OptionSpec]>) values[name] = spec.default();

  const configFile = sources.configFile ?? env.GDFLOW_CONFIG;
  if (configFile) {
    if (!existsSync(configFile)) problems.push(`config file ${configFile} does not exist`);
    else {
      let document: unknown;
      try {
        document = parseYaml(readFileSync(configFile, 'utf8'));
      } catch (error) {
        problems.push(`config file ${configFile} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (document !== undefined && document !== null) {
        if (typeof document !== 'object' || Array.isArray(document)) problems.push(`config file ${configFile} must hold a mapping of option: value`);
        else {
          for (const [key, raw] of Object.entries(document)) {
            const spec = (OPTIONS as Record<string, OptionSpec>)[key];
            if (!spec) {
              problems.push(`config file ${configFile}: unknown option '${key}' (known: ${Object.keys(OPTIONS).join(', ')})`);
              continue;
            }
            const value = coerce(key, spec, raw, configFile, problems);
            if (value !== undefined) values[key] = value;
          }
        }
      }
    }
  }
  for (const [name, spec] of Object.entries(OPTIONS) as Array<[OptionName, OptionSpec]>) {
    const raw = env[spec.env];
    if (raw !== undefined && raw !== '') {
      const value = coerce(name, spec, raw, spec.env, problems);
      if (value !== undefined) values[name] = value;
    }
    const flag = sources.flags?.[name];
    if (flag !== undefined) {
      const value = coerce(name, spec, flag, spec.flag, problems);
      if (value !== undefined) values[name] = value;
    }
  }
  const database = parseDatabase(String(values.database));
  if ('problem' in database) problems.push(`database: ${database.problem}`);
  if (values.leaseTtl === 0) problems.push(`leaseTtl must be at least 1 second`);
  const proxies = trustedProxies(String(values.trustProxy));
  if ('problem' in proxies) problems.push(`trustProxy: ${proxies.problem}`);
  try {
    retryPolicyOf(values as unknown as Config);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const config = values as unknown as Config;
  config.dataDir = resolve(config.dataDir);
  config.publicUrl = config.publicUrl.replace(/\/+$/, '');
  if (configFile) config.configFile = configFile;
  return config;
}

/** The retry policy of tools without one (docs/tasks.md, "Retries"), from the retry* options. */
export function retryPolicyOf(config: Pick<Config, 'retryMaxAttempts' | 'retryOn' | 'retryMemoryFactor' | 'retryBackoff'>): RetryPolicy {
  const on = config.retryOn.trim() === '' || config.retryOn.trim() === 'none' ? [] : config.retryOn.split(',').map((s) => s.trim());
  const factor = Number(config.retryMemoryFactor);
  return readRetryPolicy(
    {
      max_attempts: config.retryMaxAttempts,
      on,
      memory_factor: Number.isFinite(factor) ? factor : config.retryMemoryFactor,
      backoff_seconds: config.retryBackoff,
    },
    'retry (--retry-*)',
    DEFAULT_RETRY_POLICY,
    parseSizeMb,
  );
}

const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * The --trust-proxy list: IP addresses, CIDR ranges (10.0.0.0/8, fd00::/8) and the named ranges of proxy-addr, which
 * Fastify's trustProxy takes; empty trusts no proxy. Anything else (a host name, `true`, a hop count) is refused:
 * trusting every sender of X-Forwarded-For would let any client claim any address.
 */
export function trustedProxies(text: string): { addresses: string[] } | { problem: string } {
  const addresses = text
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  for (const address of addresses) {
    if (PROXY_RANGES.has(address)) continue;
    const [ip, bits, ...rest] = address.split('/');
    const family = isIP(ip ?? '');
    const max = family === 4 ? 32 : 128;
    const validBits = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !validBits || rest.length > 0) {
      return { problem: `'${address}' is not an IP address, a CIDR range (10.0.0.0/8) or one of ${[...PROXY_RANGES].join(', ')}` };
    }
  }
  return { addresses };
}
