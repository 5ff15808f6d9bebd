/**
 * How a container's end becomes a JobResult: the same outcomes and reasons as the process executors
 * (runner.ts), so that a job reads the same whichever executor ran it.
 */
import { constants as osConstants } from 'node:os';
import type { ContainerStatus } from './container-script.js';
import type { JobOutcome, JobSpec } from './executor.js';

/** Why the executor ended the container itself, if it did. */
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

/** What is known of out-of-memory kills in the container. */
export interface MemoryEvidence {
  /** What the container's script wrote, if it got that far. */
  status: ContainerStatus | undefined;
  /** Whether podman's monitor (conmon) saw an out-of-memory kill in the container. */
  monitorSawOom: boolean;
}

/**
 * `code` is the container's exit code (its script's: the command's own, or 128+N for a command killed by signal
 * N; 137 for the script itself SIGKILLed).
 */
export function endingOf(spec: Pick<JobSpec, 'timeoutSeconds' | 'memMb'>, code: number, evidence: MemoryEvidence, cause: StopCause | undefined): Ending {
  const { status } = evidence;
  const base = { exitCode: code, signal: null as string | null };
  if (cause === 'abort') return { ...base, outcome: 'killed', reason: 'stopped' };
  if (cause === 'timeout') return { ...base, outcome: 'timed_out', reason: `timed out after ${spec.timeoutSeconds} s` };
  if (code === 0) return { ...base, outcome: 'succeeded', reason: 'exit code 0' };
  let reason = `exit code ${code}`;
  let signal: string | null = null;
  if (code > 128 && code <= 128 + 64 && signalNames.has(code - 128)) {
    signal = signalNames.get(code - 128) ?? null;
    reason = `killed by ${signal} (exit code ${code})`;
  }
  // The script counts the kills while the command ran; podman's monitor saw one when the script itself was chosen.
  const outOfMemory = (status?.oomKills ?? 0) > 0 || (!status && evidence.monitorSawOom);
  if (outOfMemory) reason = `out of memory: exceeded the ${spec.memMb} MB limit (${reason})`;
  return { ...base, signal, outcome: outOfMemory ? 'out_of_memory' : 'failed', reason };
}
