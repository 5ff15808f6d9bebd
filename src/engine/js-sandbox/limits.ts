/** What one evaluation in the JavaScript sandbox may use, and how the pool around it is sized. */

export interface SandboxLimits {
  /** Wall-clock time for one evaluation (expressionLib, inputs and the code), in milliseconds. */
  timeLimitMs: number;
  /** Memory of the QuickJS runtime an evaluation runs in, in bytes. */
  memoryLimitBytes: number;
  /** QuickJS's stack, in bytes: how deep the code may recurse. */
  stackLimitBytes: number;
  /** Characters of the JSON text of a result. */
  resultLimitChars: number;
}

export interface SandboxOptions extends Partial<SandboxLimits> {
  /** Worker threads at most, each evaluating one expression at a time; started when needed. */
  workers?: number;
  /**
   * How long past the time limit a worker may stay silent before it is terminated and replaced. The time limit
   * is enforced inside QuickJS; this catches what QuickJS cannot interrupt (one long built-in call).
   */
  graceMs?: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = {
  timeLimitMs: 5000,
  memoryLimitBytes: 256 * MiB,
  stackLimitBytes: 512 * 1024,
  resultLimitChars: 64 * MiB,
};

export interface SandboxSettings {
  limits: SandboxLimits;
  workers: number;
  graceMs: number;
}

/** The options with defaults filled in; every value out of range is reported in one RangeError. */
export function sandboxSettings(options: SandboxOptions = {}): SandboxSettings {
  const limits = { ...DEFAULT_LIMITS, ...definedOnly(options) };
  const settings = { limits, workers: options.workers ?? 2, graceMs: options.graceMs ?? 2000 };
  const problems = [
    check('timeLimitMs', limits.timeLimitMs, 1, 3_600_000),
    check('memoryLimitBytes', limits.memoryLimitBytes, MiB, 2048 * MiB),
    // QuickJS runs on the worker's native stack too, which is sized from this (nativeStackMb) and has a ceiling.
    check('stackLimitBytes', limits.stackLimitBytes, 64 * 1024, 8 * MiB),
    check('resultLimitChars', limits.resultLimitChars, 1, 512 * MiB),
    check('workers', settings.workers, 1, 64),
    check('graceMs', settings.graceMs, 0, 600_000),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) throw new RangeError(`JavaScript sandbox options: ${problems.join('; ')}`);
  return settings;
}

function definedOnly(options: SandboxOptions): Partial<SandboxLimits> {
  const out: Partial<SandboxLimits> = {};
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[]) if (options[key] !== undefined) out[key] = options[key];
  return out;
}

function check(name: string, value: number, least: number, most: number): string | undefined {
  return Number.isInteger(value) && value >= least && value <= most ? undefined : `${name} must be an integer from ${least} to ${most}, not ${value}`;
}

/**
 * The worker's native stack. QuickJS's interpreter recurses on it as well as on its own stack, about eight
 * times as deep in bytes, and Node throws a RangeError through the WebAssembly when it runs out, which would
 * leave QuickJS in an unknown state: sizing it from QuickJS's limit makes QuickJS's own, clean error come first.
 */
export const nativeStackMb = (limits: SandboxLimits): number => Math.max(4, Math.ceil((limits.stackLimitBytes * 8) / MiB));

export const describeTime = (ms: number): string => `${ms / 1000} s`;

export function describeBytes(bytes: number): string {
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
