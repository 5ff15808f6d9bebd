/**
 * The `debug_params` of a WDL restart (docs/wire.md §8), as gdpy sends them:
 * `[{"job_name": "<call>", "runtime": {"cpu": "4c", "memory": "2G", "disk": "100G"}, "command": "..."}]`, read into
 * numbers, every refusal naming the item and member.
 */
import { invalid } from '../../errors.js';
import { describe, isObject } from '../../json.js';

export interface DebugParam {
  /** The call as `job_name` names it: its job's name, its path (`sub.inner`), ... (domain/wdl/run/call-sites.ts). */
  call: string;
  cpu?: number;
  memoryBytes?: number;
  diskBytes?: number;
  command?: string;
}

const UNITS: Record<string, number> = { '': 1, B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
const MAX_CPU = 1024;
const MAX_COMMAND = 256 * 1024;

/** `4c`, `4`, 4 → 4 cpus. */
function cpuOf(value: unknown, path: string): number {
  const match = typeof value === 'number' ? [String(value), String(value)] : typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*c?\s*$/i.exec(value) : null;
  const cpu = match ? Number(match[1]) : NaN;
  if (!(cpu > 0 && cpu <= MAX_CPU)) throw invalid(`${path} ${describe(value)} is not a number of cpus such as '4c' (more than 0, at most ${MAX_CPU})`);
  return cpu;
}

/** `2G`, `512M`, `2GiB`, `100 GB`, a number of bytes → bytes (binary units, as GeneDock's runtime sizes are). */
function bytesOf(value: unknown, path: string): number {
  const match =
    typeof value === 'number'
      ? [String(value), String(value), '']
      : typeof value === 'string'
        ? /^\s*(\d+(?:\.\d+)?)\s*([BKMGT]?)(?:i?B)?\s*$/i.exec(value)
        : null;
  const bytes = match ? Number(match[1]) * UNITS[match[2]!.toUpperCase()]! : NaN;
  if (!(bytes > 0 && Number.isFinite(bytes) && bytes <= 2 ** 53)) throw invalid(`${path} ${describe(value)} is not a size such as '2G' or '512M'`);
  return Math.ceil(bytes);
}

/** The restart body's debug_params, read (the calls they name are looked up with the run's documents: runs/restart-plan.ts). */
export function readDebugParams(value: unknown): DebugParam[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(`debug_params must be a list of {job_name, runtime, command}, not ${describe(value)}`);
  return value.map((item: unknown, i) => {
    const at = `debug_params[${i}]`;
    if (!isObject(item)) throw invalid(`${at} must be an object {job_name, runtime, command}, not ${describe(item)}`);
    const name = item.job_name;
    if (typeof name !== 'string' || name === '') throw invalid(`${at}.job_name is required: the call to run again`);
    if (name.length > 1024) throw invalid(`${at}.job_name is longer than 1024 characters`);
    const param: DebugParam = { call: name };
    if (item.runtime !== undefined && item.runtime !== null) {
      if (!isObject(item.runtime)) throw invalid(`${at}.runtime must be an object {cpu, memory, disk}, not ${describe(item.runtime)}`);
      for (const key of Object.keys(item.runtime))
        if (!['cpu', 'memory', 'disk'].includes(key)) throw invalid(`${at}.runtime.${key.slice(0, 64)} is not one of cpu, memory, disk`);
      const { cpu, memory, disk } = item.runtime;
      if (cpu !== undefined && cpu !== '') param.cpu = cpuOf(cpu, `${at}.runtime.cpu`);
      if (memory !== undefined && memory !== '') param.memoryBytes = bytesOf(memory, `${at}.runtime.memory`);
      if (disk !== undefined && disk !== '') param.diskBytes = bytesOf(disk, `${at}.runtime.disk`);
    }
    if (item.command !== undefined && item.command !== null && item.command !== '') {
      if (typeof item.command !== 'string') throw invalid(`${at}.command must be a string, not ${describe(item.command)}`);
      if (item.command.length > MAX_COMMAND) throw invalid(`${at}.command is longer than ${MAX_COMMAND} characters`);
      if (item.command.includes('\0')) throw invalid(`${at}.command holds a NUL character`);
      param.command = item.command;
    }
    return param;
  });
}
