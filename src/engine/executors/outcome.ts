/**
 * How the end of a job's command becomes its outcome and reason: one rule for every executor (the process
 * executors, the containers and Slurm), so that a job reads the same whichever executor ran it.
 */
import { constants as osConstants } from 'node:os';
import type { JobOutcome, RunSpec } from './executor.js';

/** Why the executor ended the job itself, if it did. */
export type StopCause = 'abort' | 'timeout';

const signalNames = new Map<number, string>();
for (const [name, num] of Object.entries(osConstants.signals)) {
  if (!signalNames.has(num)) signalNames.set(num, name);
}

export interface Ending {
  outcome: JobOutcome;
  exitCode: number | null;
  signal: string | null;
  reason: string;
}

/**
 * A command that ended by itself: `code` is its exit code (null when killed by `signal`), `outOfMemory` whether
 * the memory limit's enforcer killed something of it. bwrap's init, /bin/sh and a container's script report a
 * command killed by signal N as exit code 128+N: that reads as the signal.
 */
export function exitEnding(spec: Pick<RunSpec, 'memMb'>, code: number | null, signal: string | null, outOfMemory: boolean): Ending {
  if (code === 0) return { exitCode: code, signal, outcome: 'succeeded', reason: 'exit code 0' };
  let reason: string;
  if (signal) reason = `killed by ${signal}`;
  else if (code !== null && code > 128 && code <= 128 + 64 && signalNames.has(code - 128)) {
    signal = signalNames.get(code - 128) ?? null;
    reason = `killed by ${signal} (exit code ${code})`;
  } else reason = `exit code ${code}`;
  if (outOfMemory) reason = `out of memory: exceeded the ${spec.memMb} MB limit (${reason})`;
  return { exitCode: code, signal, outcome: outOfMemory ? 'out_of_memory' : 'failed', reason };
}

/**
 * A command the executor may have stopped: `code` is the exit code seen (a container's script's: the command's
 * own, or 128+N for a command killed by signal N; 137 for the script itself SIGKILLed).
 */
export function endingOf(spec: Pick<RunSpec, 'timeoutSeconds' | 'memMb'>, code: number, outOfMemory: boolean, cause: StopCause | undefined): Ending {
  if (cause === 'abort') return { exitCode: code, signal: null, outcome: 'killed', reason: 'stopped' };
  if (cause === 'timeout') return { exitCode: code, signal: null, outcome: 'timed_out', reason: `timed out after ${spec.timeoutSeconds} s` };
  return exitEnding(spec, code, null, outOfMemory);
}
