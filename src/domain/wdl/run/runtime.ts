import type { Task } from '../ast.js';
import { WdlRuntimeError } from '../errors.js';
import { evaluate, type Scope } from '../eval.js';
import { NO_FILES } from '../files.js';
import { unitFactor } from '../stdlib/file-functions.js';
import { guess, type WdlValue } from '../values.js';
import { diskMbOf, DisksError, readDisks } from './disks.js';

/** What a task's runtime (or 1.1 requirements) section asks for (spec "Runtime Section"). */
export interface TaskRuntime {
  /** The container image; empty: none. */
  readonly image: string;
  readonly cpu: number;
  /** MiB; 0: not asked. */
  readonly memMb: number;
  readonly maxRetries: number;
  /** The exit codes that are a success: `*` for any. */
  readonly returnCodes: readonly number[] | '*';
  readonly gpu: boolean;
  /**
   * What `disks` asks for (run/disks.ts): MiB in all, the mount points besides the working directory, and where it is
   * asked (`main.wdl:9:12`, or `the inputs JSON's wf.call.runtime.disks`); absent: nothing.
   */
  readonly disks?: { readonly mb: number; readonly mountPoints: readonly string[]; readonly where: string };
}

type Fail = (key: string, what: string) => never;

/** A task's runtime section and where the task is (for an error about a key it does not write). */
type RuntimeSection = Pick<Task, 'runtime' | 'pos'>;

/**
 * A runtime attribute the inputs JSON sets for a task call (`wf.call.runtime.<key>`), checked as the call will read
 * it: a WdlRuntimeError when it cannot be. An attribute gdflow does not read is ignored, as the spec allows.
 */
export function checkRuntimeInput(key: string, json: unknown): void {
  const nowhere: RuntimeSection = { runtime: new Map(), pos: { file: 'inputs', line: 1, column: 1 } };
  readRuntime(
    nowhere,
    { lookup: () => undefined, structs: new Map(), files: NO_FILES },
    (k) => (k === key ? json : undefined),
    () => '',
  );
}

/**
 * A task's runtime attributes, evaluated in its scope; an attribute the inputs JSON sets (`given('memory')`, from
 * `wf.call.runtime.memory`, which `givenName` names) replaces the document's (spec "Specifying / Overriding Runtime Attributes"). An alias
 * (`docker` for `container`, `max_retries`, `return_codes`) is the same attribute: one given in the inputs wins over
 * either written in the document. A value of the wrong kind is a WdlRuntimeError naming where it is.
 */
export function readRuntime(section: RuntimeSection, scope: Scope, given: (key: string) => unknown, givenName: (key: string) => string): TaskRuntime {
  const givenKey = (keys: readonly string[]) => keys.find((key) => given(key) !== undefined);
  const value = (...keys: string[]): WdlValue | undefined => {
    const input = givenKey(keys);
    if (input !== undefined) return guess(given(input));
    const key = keys.find((k) => section.runtime.has(k));
    return key === undefined ? undefined : evaluate(section.runtime.get(key)!, scope);
  };
  const where = (key: string): string => {
    if (given(key) !== undefined) return givenName(key);
    const pos = section.runtime.get(key)?.pos ?? section.pos;
    return `${pos.file}:${pos.line}:${pos.column}`;
  };
  const fail: Fail = (key, what) => {
    if (given(key) === undefined) throw new WdlRuntimeError(`runtime ${key}: ${what}`, section.runtime.get(key)?.pos ?? section.pos);
    const name = givenName(key);
    throw new WdlRuntimeError(`runtime ${key}${name === '' ? '' : ` (${name})`}: ${what}`);
  };
  const image = value('container', 'docker');
  let imageName = '';
  if (image?.t === 'String') imageName = image.v;
  else if (image?.t === 'Array') imageName = image.items.map((item) => ('v' in item ? String(item.v) : '')).find((name) => name !== '' && name !== '*') ?? '';
  else if (image !== undefined && image.t !== 'None') fail('container', `a String or an Array of String, not a ${image.t}`);
  const cpuValue = value('cpu');
  let cpu = 1;
  if (cpuValue && (cpuValue.t === 'Int' || cpuValue.t === 'Float')) cpu = Math.max(1, Math.ceil(cpuValue.v));
  else if (cpuValue?.t === 'String' && /^\d+(\.\d+)?$/.test(cpuValue.v.trim())) cpu = Math.max(1, Math.ceil(Number(cpuValue.v)));
  else if (cpuValue !== undefined && cpuValue.t !== 'None') fail('cpu', `a number, not ${JSON.stringify('v' in cpuValue ? cpuValue.v : cpuValue.t)}`);
  const memory = value('memory');
  let memMb = 0;
  if (memory?.t === 'Int') memMb = Math.ceil(memory.v / 2 ** 20);
  else if (memory?.t === 'String')
    memMb = Math.ceil(sizeBytes(memory.v, () => fail('memory', `'${memory.v}' is not an amount of memory such as "4 GiB"`)) / 2 ** 20);
  else if (memory !== undefined && memory.t !== 'None') fail('memory', `an Int of bytes or a String such as "4 GiB", not a ${memory.t}`);
  const retries = value('maxRetries', 'max_retries');
  if (retries !== undefined && retries.t !== 'None' && (retries.t !== 'Int' || retries.v < 0)) fail('maxRetries', 'an Int, 0 or more');
  const gpu = value('gpu');
  if (gpu !== undefined && gpu.t !== 'None' && gpu.t !== 'Boolean') fail('gpu', `a Boolean, not a ${gpu.t}`);
  const disksKey = givenKey(['disks']) ?? 'disks';
  const disks = readTaskDisks(value('disks'), fail, where(disksKey));
  return {
    image: imageName,
    cpu,
    memMb,
    maxRetries: retries?.t === 'Int' ? retries.v : 0,
    returnCodes: returnCodes(value('returnCodes', 'return_codes'), fail),
    gpu: gpu?.t === 'Boolean' && gpu.v,
    ...(disks ? { disks } : {}),
  };
}

function readTaskDisks(value: WdlValue | undefined, fail: Fail, where: string): TaskRuntime['disks'] {
  if (value === undefined) return undefined;
  try {
    const request = readDisks(value);
    const mb = diskMbOf(request);
    if (!request || (mb === undefined && request.mountPoints.length === 0)) return undefined;
    return { mb: mb ?? 0, mountPoints: request.mountPoints, where };
  } catch (error) {
    if (error instanceof DisksError) return fail('disks', error.message);
    throw error;
  }
}

function returnCodes(value: WdlValue | undefined, fail: Fail): readonly number[] | '*' {
  if (value === undefined || value.t === 'None') return [0];
  if (value.t === 'String' && value.v === '*') return '*';
  if (value.t === 'Int') return [value.v];
  if (value.t === 'Array' && value.items.every((item) => item.t === 'Int')) return value.items.map((item) => (item as { v: number }).v);
  return fail('returnCodes', 'an Int, an Array[Int] or "*"');
}

/** Bytes of "4 GiB", "512 MB", "2G". */
export function sizeBytes(text: string, fail: () => never): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(text);
  if (!match) return fail();
  try {
    return Number(match[1]) * unitFactor(match[2] === '' ? 'B' : match[2]!);
  } catch {
    return fail();
  }
}
