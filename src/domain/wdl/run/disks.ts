import { posix } from 'node:path';
import { isUnder, JOB_DIR, systemDirOf } from '../../tes/paths.js';
import type { Expr } from '../ast.js';
import { WdlError } from '../errors.js';
import { evaluate } from '../eval.js';
import { NO_FILES } from '../files.js';
import { unitFactor } from '../stdlib/file-functions.js';
import { typeText, type StructTable, type WdlType } from '../types.js';
import type { WdlValue } from '../values.js';

/**
 * A task's `disks` runtime key (docs/wdl.md, "Disks"). WDL 1.1 ("disks"): an Int of GiB, a String disk specification
 * (`"<size>"` in GiB, `"<size> <unit>"`, `"<mount-point> <size>"`, `"<mount-point> <size> <unit>"`) or an
 * Array[String] of them, at most one without a mount point. WDL 1.0 leaves the key to engines; its common form is
 * Cromwell's: `"local-disk 100 SSD"` (the working directory, GiB, a disk type), several joined with commas in one
 * String (`"local-disk 100 SSD, /mnt/extra 50 HDD"`). Both are read the same way: a spec is
 * `[<mount-point>|local-disk] <size>[ ][<unit>][ <type>]`, the type (SSD, HDD, LOCAL) being a hint gdflow has no
 * choice to make with.
 */
export interface DiskRequest {
  /** All the specs' sizes together, in bytes: what the call asks of the disk its working directory is on. */
  readonly bytes: number;
  /** The absolute mount points asked for, besides the working directory (no spec and `local-disk` are that). */
  readonly mountPoints: readonly string[];
}

/** A malformed `disks` value: `what` says why, for a message that adds where. */
export class DisksError extends Error {}

const DISK_TYPES = new Set(['SSD', 'HDD', 'LOCAL']);
const GIB = 2 ** 30;
const EXAMPLES = '"10 GiB", "local-disk 100 SSD" or "/mnt/outputs 500 GiB"';

/** The request a `disks` value makes; None (an optional left out): none. DisksError when it is malformed. */
export function readDisks(value: WdlValue): DiskRequest | undefined {
  switch (value.t) {
    case 'None':
      return undefined;
    case 'Int':
      if (value.v < 0) throw new DisksError(`${value.v} is not a size: a number of GiB is not negative`);
      return { bytes: value.v * GIB, mountPoints: [] };
    case 'String':
      return combine(value.v.split(',').map((spec) => readSpec(spec, value.v)));
    case 'Array':
      return combine(
        value.items.flatMap((item) => {
          if (item.t !== 'String') throw new DisksError(`an Array's items must be Strings such as ${EXAMPLES}, not a ${item.t}`);
          return item.v.split(',').map((spec) => readSpec(spec, item.v));
        }),
      );
    default:
      throw new DisksError(`an Int (GiB), a String such as ${EXAMPLES} or an Array[String] of them, not a ${value.t}`);
  }
}

interface Spec {
  /** Undefined: the working directory. */
  readonly mountPoint?: string;
  readonly bytes: number;
}

function combine(specs: readonly Spec[]): DiskRequest {
  const seen = new Set<string>();
  let root = 0;
  for (const spec of specs) {
    const where = spec.mountPoint ?? '';
    if (where === '' && ++root > 1) throw new DisksError('at most one disk specification may leave out its mount point (the working directory is one disk)');
    if (where !== '' && seen.has(where)) throw new DisksError(`the mount point ${where} is named twice`);
    seen.add(where);
  }
  const bytes = specs.reduce((sum, spec) => sum + spec.bytes, 0);
  return { bytes, mountPoints: specs.flatMap((spec) => (spec.mountPoint === undefined ? [] : [spec.mountPoint])) };
}

/** One disk specification: `[<mount-point>|local-disk] <size>[ ][<unit>][ <type>]`. */
function readSpec(text: string, whole: string): Spec {
  const malformed = (why = ''): never => {
    throw new DisksError(`'${whole.slice(0, 200)}' is not a disk specification such as ${EXAMPLES}${why}`);
  };
  const words = text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return malformed(': a specification is empty');
  let mountPoint: string | undefined;
  if (words[0]!.toLowerCase() === 'local-disk') words.shift();
  else if (words[0]!.startsWith('/')) mountPoint = words.shift()!;
  else if (words.length > 1 && !/^[-+.]?\d/.test(words[0]!)) return malformed(`: the mount point '${words[0]!.slice(0, 100)}' is not an absolute path`);
  const word = words.shift();
  if (word === undefined) return malformed(': it names no size');
  const size = /^(\d+(?:\.\d+)?)([A-Za-z]*)$/.exec(word) ?? malformed(`: '${word.slice(0, 100)}' is not a size (a number, not negative, and its unit)`);
  let unit = size[2]!;
  if (unit === '' && words.length > 0 && !DISK_TYPES.has(words[0]!.toUpperCase())) unit = words.shift()!;
  if (words.length > 0 && DISK_TYPES.has(words[0]!.toUpperCase())) words.shift();
  if (words.length > 0) return malformed(`: '${words.join(' ').slice(0, 100)}' is no unit of storage nor disk type (SSD, HDD)`);
  let factor = GIB;
  if (unit !== '') {
    try {
      factor = unitFactor(unit);
    } catch {
      return malformed(`: '${unit.slice(0, 20)}' is not a unit of storage (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)`);
    }
  }
  const problem = mountPoint === undefined ? undefined : mountPointProblem(mountPoint);
  if (problem !== undefined) return malformed(`: ${problem}`);
  return { ...(mountPoint !== undefined ? { mountPoint } : {}), bytes: Number(size[1]) * factor };
}

/**
 * Why no disk can be mounted at `path` in a sandbox or container (docs/wdl.md, "Disks"); undefined: one can. The
 * executors bind a directory of the job's there (RunSpec.roots), as they do a TES task's: never over the system's own
 * directories (/proc, /sys, /dev, /usr, ...: the sandbox's, or ones the bind would hide), nor over / or the working
 * directory, which is a disk already.
 */
function mountPointProblem(path: string): string | undefined {
  const shown = path.slice(0, 100);
  if (/[\0\n\r]/.test(path)) return 'a mount point holds no NUL nor line break';
  if (posix.normalize(path) !== path || (path.length > 1 && path.endsWith('/')))
    return `the mount point ${shown} is not a normalised path (no ., .., // nor a / at its end)`;
  if (path === '/') return 'the mount point / is the whole file system, not a disk of its own';
  if (isUnder(path, JOB_DIR)) return `the mount point ${shown} is the working directory (${JOB_DIR}) or in it, which is the first disk: ask for its size alone`;
  const system = systemDirOf(path);
  if (system !== undefined) return `the mount point ${shown} is in ${system}, a directory of the system no disk can be mounted on (use /mnt, /data or /tmp)`;
  return undefined;
}

/** MiB of a request's bytes, as a job's disk is kept (at least 1 when anything is asked); undefined when nothing is. */
export const diskMbOf = (request: DiskRequest | undefined): number | undefined =>
  request && request.bytes > 0 ? Math.ceil(request.bytes / 2 ** 20) : undefined;

const DISK_VALUE_KINDS = new Set(['Int', 'String', 'Any', 'None']);

/**
 * The check of a task's `disks` when the document is checked: its type (an Int, a String or an Array[String]), and a
 * value known without the task's inputs (a literal, the common case) read as it will be at run time, so that
 * `gdflow wdl check` and the wdl/ routes refuse a malformed one at its file, line and column.
 */
export function checkDisks(expr: Expr, type: WdlType, structs: StructTable): void {
  const itemOk = type.kind === 'Array' && DISK_VALUE_KINDS.has(type.item.kind) && type.item.kind !== 'Int';
  if (!DISK_VALUE_KINDS.has(type.kind) && !itemOk)
    throw new WdlError(expr.pos, `runtime disks must be an Int (GiB), a String such as ${EXAMPLES} or an Array[String], not ${typeText(type)}`);
  let value: WdlValue;
  try {
    value = evaluate(expr, { lookup: () => undefined, structs, files: NO_FILES });
  } catch {
    return; // It reads the task's values or files: read when the call is prepared.
  }
  try {
    readDisks(value);
  } catch (error) {
    if (error instanceof DisksError) throw new WdlError(expr.pos, `runtime disks: ${error.message}`);
    throw error;
  }
}

/**
 * Why a call whose `disks` name mount points does not run on an executor without a sandbox (the host executor, Slurm
 * wrapping jobs the host way): there a directory bound at the path the task names would be the host's own, so nothing
 * is mounted. WDL 1.1 makes `runtime` a requirement ("the execution engine must guarantee the requested resources are
 * available or immediately fail the task prior to instantiating the command"), and a command that writes to a mount
 * point that is not there fails later and less clearly (or writes to the host's directory of that name), so the call
 * fails before its command. The sandboxed executors mount them (engine/wdl/resolver.ts).
 */
export function mountPointsRefusal(task: string, mountPoints: readonly string[], where: string): string {
  return (
    `not started: task ${task} asks for disks mounted at ${mountPoints.join(', ')} (runtime disks, ${where}), and this executor has no sandbox ` +
    `to mount them in: the bwrap and podman executors (and Slurm wrapping jobs in them) provide mount points; here, ask for the size alone ` +
    `("4 GiB" or "local-disk 4 HDD"), which the working directory's disk must have free`
  );
}

/** Why a call asking `diskMb` of disk does not start where `freeBytes` are free (`asked`: who asks it); undefined: it may. */
export function diskShortfall(diskMb: number, freeBytes: number, asked = "the restart's debug_params ask"): string | undefined {
  const bytes = diskMb * 2 ** 20;
  if (freeBytes >= bytes) return undefined;
  const gib = (n: number) => `${(n / GIB).toFixed(1)} GiB`;
  return `not started: ${asked} ${gib(bytes)} of disk for this call, and gdflow's data root has ${gib(freeBytes)} free`;
}

/** Who asks a call's disk, for diskShortfall: the task's `disks`, where it is set (`main.wdl:9:12`). */
export const runtimeDisksAsk = (where: string) => `the task's runtime disks (${where}) ask`;
