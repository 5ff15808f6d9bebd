/**
 * The Slurm executor: each job is one `sbatch` of a batch script (batch-script.ts) that runs the job as the host or
 * bwrap executor would start it, on a compute node. The data root must be a file system the worker and the nodes
 * share (docs/operating.md).
 *
 * - The Slurm job id is the job's external id, reported through onStarted as soon as sbatch has answered: it must
 *   be in the store before anything else can happen, so that a worker taking the task over adopts the Slurm job
 *   instead of submitting it again. A job waiting in Slurm's queue therefore reads `running` in gdflow: it has left
 *   gdflow's queue for the cluster's.
 * - A job's start and end are learned from the files its script writes (batch-script.ts), looked at every
 *   `pollMs` without asking the controller; one squeue per `queueMs` for all jobs (poller.ts) tells what
 *   files cannot: a job that Slurm killed (memory, time, scancel) ends in Slurm's final state; one the controller
 *   no longer knows, with no status file, is lost, and the engine runs it again. After a scancel the squeue comes
 *   at once. Per job that is one sbatch and a share of the squeues: a 200-job DAG cost N RPCs (BENCHMARKS.md).
 * - Submissions are rate-limited (`submitPerSecond`) and capped (`maxQueued` jobs submitted and not ended): what
 *   waits for a turn has not started, and stays queued in gdflow.
 * - Stop and timeout: scancel (Slurm sends SIGTERM to the job's processes, SIGKILL after its KillWait), then the
 *   executor waits until Slurm reports the job ended, so that nothing of it is left in the queue when run resolves.
 *   The timeout counts from the job's start on its node (Slurm's start time); a Slurm time limit of the timeout
 *   plus a minute backs it up should the worker die.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ContainerExecutor, foregroundEnding, removeForegroundFiles, type ContainerExecutorOptions } from '../container/index.js';
import type { Executor, ExecutorCapabilities, JobResult, RunSpec, RunHooks } from '../executor.js';
import { endingOf, type StopCause } from '../outcome.js';
import { BwrapExecutor, HostExecutor, type BwrapExecutorOptions, type HostExecutorOptions, type LaunchPlan } from '../process/index.js';
import { prepareWorkDir } from '../spec-checks.js';
import { batchScript, containerBatchScript, readSlurmStart, readSlurmStatus, slurmFilename } from './batch-script.js';
import { DEFAULT_COMMANDS, ENDED_STATES, slurmCall, submitEnvironment, type QueueRow, type SlurmCommands } from './cli.js';
import { SlurmPoller } from './poller.js';
import { slurmTurnWait, slurmWait } from '../../../domain/tasks/waiting.js';

export type SlurmWrap = 'host' | 'bwrap' | 'podman';
export const SLURM_WRAPS: readonly SlurmWrap[] = ['host', 'bwrap', 'podman'];

export interface SlurmExecutorOptions {
  partition?: string;
  account?: string;
  qos?: string;
  /** More sbatch arguments, each one argument (e.g. ['--constraint=ssd']). */
  extraArgs?: string[];
  /**
   * How a job is run on its node: 'bwrap' (the default: the bwrap sandbox, which the nodes need), 'host', or
   * 'podman': in a container of its tool's image, as the podman executor runs it (the nodes need podman and the
   * images, or a registry to pull them from); a job whose tool names no image runs the bwrap way.
   */
  wrap?: SlurmWrap;
  /** Time between two looks at the jobs' status files (no controller RPC). Default 250 ms. */
  pollMs?: number;
  /** Time between two squeue calls (one for all jobs). Default 5000 ms. */
  queueMs?: number;
  /** sbatch calls per second at most. Default 20. */
  submitPerSecond?: number;
  /** Jobs submitted and not yet ended, at most; more wait their turn. Default 1000. */
  maxQueued?: number;
  /** Polls a job may go unlisted by the controller, without a status file, before it is taken as lost. Default 5. */
  lostAfterPolls?: number;
  commands?: Partial<SlurmCommands>;
  /** Options of the wrapping executor. */
  bwrap?: BwrapExecutorOptions;
  /** wrap 'podman': the runtime's CLI on the nodes (`runtime`), the pull policy, the stop grace period, ulimits. */
  container?: ContainerExecutorOptions;
  host?: HostExecutorOptions;
}

const now = (): number => Date.now() / 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a job's Slurm files are: beside its logs. */
function slurmFilesOf(spec: RunSpec): { dir: string; script: string; status: string; started: string } {
  const dir = join(dirname(spec.stdoutLog), 'slurm');
  return { dir, script: join(dir, 'job.sh'), status: join(dir, 'status'), started: join(dir, 'started') };
}

export class SlurmExecutor implements Executor {
  readonly name = 'slurm';
  readonly capabilities: ExecutorCapabilities;
  private readonly commands: SlurmCommands;
  private readonly wrapper: HostExecutor | BwrapExecutor;
  /** wrap 'podman': what runs the jobs whose tools name an image. */
  private readonly container: ContainerExecutor | undefined;
  readonly poller: SlurmPoller;
  private readonly submitGapMs: number;
  private readonly maxQueued: number;
  private inQueue = 0;
  private nextSubmitAt = 0;
  private readonly turnWaiters: Array<() => void> = [];
  /** sbatch and scancel calls made (one controller RPC each); with the poller's calls, what this executor asked. */
  calls = 0;

  constructor(private readonly options: SlurmExecutorOptions = {}) {
    this.commands = { ...DEFAULT_COMMANDS, ...options.commands };
    const wrap = options.wrap ?? 'bwrap';
    this.wrapper = wrap === 'host' ? new HostExecutor(options.host) : new BwrapExecutor(options.bwrap);
    this.container = wrap === 'podman' ? new ContainerExecutor('podman', options.container) : undefined;
    this.capabilities = this.container ? { ...this.container.capabilities } : { ...this.wrapper.capabilities };
    this.poller = new SlurmPoller(this.commands.squeue, options.queueMs ?? 5000, (error) => process.emitWarning(`squeue: ${error.message}`));
    this.submitGapMs = 1000 / Math.max(0.001, options.submitPerSecond ?? 20);
    this.maxQueued = Math.max(1, options.maxQueued ?? 1000);
  }

  async check(): Promise<void> {
    try {
      await slurmCall(this.commands.sinfo, ['--noheader', '--format', '%P']);
    } catch (error) {
      throw new Error(
        `the Slurm cluster cannot be reached from this host (${(error as Error).message}); the worker needs the Slurm client commands, munge and the cluster's slurm.conf (SLURM_CONF)`,
        { cause: error },
      );
    }
    if (this.container) {
      // The containers run on the nodes: a worker host without the runtime only cannot tell its flavour (podman assumed).
      await this.container
        .check()
        .catch((error: Error) =>
          process.emitWarning(`--slurm-wrap podman: the container runtime cannot be run on this host (${error.message}); the compute nodes need it`),
        );
    }
  }

  async close(): Promise<void> {
    this.poller.close();
    await this.wrapper.close();
  }

  async run(spec: RunSpec, signal: AbortSignal, hooks?: RunHooks): Promise<JobResult> {
    const submittedAt = now();
    if (signal.aborted)
      return { outcome: 'killed', exitCode: null, signal: null, reason: 'stopped', startedAt: submittedAt, endedAt: submittedAt, memoryEnforcement: 'none' };
    const files = slurmFilesOf(spec);
    mkdirSync(files.dir, { recursive: true });
    // A status file of an earlier attempt must not be taken for this one's.
    rmSync(files.status, { force: true });
    rmSync(files.started, { force: true });
    const plan = await this.launch(spec, files.dir);
    writeFileSync(files.script, plan.script, { mode: 0o755 });
    try {
      const waitForTurn = () => tell(hooks?.onWaiting, slurmTurnWait(this.maxQueued));
      if (!(await this.turn(signal, waitForTurn))) {
        return { outcome: 'killed', exitCode: null, signal: null, reason: 'stopped', startedAt: submittedAt, endedAt: now(), memoryEnforcement: 'none' };
      }
      let id: string;
      try {
        id = await this.submit(spec, plan.cwd, files.script, plan.inContainer);
      } catch (error) {
        this.release();
        throw error;
      }
      try {
        hooks?.onStarted?.({ externalId: id });
      } catch (error) {
        process.emitWarning(`the onStarted hook of job ${spec.jobId} threw: ${(error as Error).message}`);
      }
      return await this.follow(id, spec, signal, submittedAt, hooks?.onWaiting).finally(() => this.release());
    } finally {
      await plan.cleanup();
    }
  }

  /** The batch script of a job: its container's (wrap podman, a tool with an image) or the wrapper's process. */
  private async launch(spec: RunSpec, dir: string): Promise<{ script: string; cwd: string; inContainer: boolean; cleanup: () => Promise<void> }> {
    const files = slurmFilesOf(spec);
    if (this.container && spec.image) {
      const workDir = await prepareWorkDir(spec);
      const container = this.container.foreground(spec, workDir, dir);
      return {
        script: containerBatchScript(spec.jobId, { ...container, cwd: workDir }, files.status, files.started),
        cwd: workDir,
        inContainer: true,
        cleanup: () => Promise.resolve(container.cleanup()),
      };
    }
    const plan: LaunchPlan = await this.wrapper.launchPlan(spec);
    return { script: batchScript(spec.jobId, plan, files.status, files.started), cwd: plan.cwd, inContainer: false, cleanup: async () => plan.cleanup?.() };
  }

  /** Under `--slurm-wrap podman`, the image's digest as the submitting machine resolves it (the nodes share its store). */
  async imageDigest(image: string, signal: AbortSignal): Promise<string | null> {
    return this.container ? this.container.imageDigest(image, signal) : null;
  }

  async adopt(externalId: string, spec: RunSpec, signal: AbortSignal, hooks?: Pick<RunHooks, 'onWaiting'>): Promise<JobResult> {
    const t = now();
    if (!/^\d+$/.test(externalId))
      return { outcome: 'lost', exitCode: null, signal: null, reason: `"${externalId}" is not a Slurm job id`, startedAt: t, endedAt: t };
    this.inQueue++;
    return this.follow(externalId, spec, signal, t, hooks?.onWaiting).finally(() => {
      this.release();
      if (this.container && spec.image) {
        // What the submitting worker's run would have removed (its foreground container's cleanup).
        removeForegroundFiles(spec, slurmFilesOf(spec).dir);
      }
    });
  }

  /** Waits for a turn to submit (rate and cap), saying so (`onWait`) when the cap holds it back; false when aborted first. */
  private async turn(signal: AbortSignal, onWait?: () => void): Promise<boolean> {
    if (this.inQueue >= this.maxQueued) onWait?.();
    while (this.inQueue >= this.maxQueued) {
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.turnWaiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    if (signal.aborted) return false;
    this.inQueue++;
    const at = Math.max(Date.now(), this.nextSubmitAt);
    this.nextSubmitAt = at + this.submitGapMs;
    if (at > Date.now()) await sleep(at - Date.now());
    return true;
  }

  private release(): void {
    this.inQueue--;
    // Every waiter looks again: one that gave up (aborted) must not take the wake-up another one needed.
    for (const wake of this.turnWaiters.splice(0)) wake();
  }

  private async submit(spec: RunSpec, cwd: string, script: string, inContainer: boolean): Promise<string> {
    const o = this.options;
    const args = [
      '--parsable',
      '--job-name',
      `gdflow-${spec.jobId}`,
      '--export=ALL', // of the scrubbed environment sbatch runs with (submitEnvironment)
      '--chdir',
      cwd,
      '--output',
      slurmFilename(spec.stdoutLog),
      '--error',
      slurmFilename(spec.stderrLog),
      // The container's script appends the job's output to the same files (created empty beforehand).
      ...(inContainer ? ['--open-mode=append'] : []),
      '--cpus-per-task',
      String(Math.max(1, Math.ceil(spec.cpu))),
      ...(spec.memMb > 0 ? ['--mem', `${Math.ceil(spec.memMb)}M`] : []),
      ...(spec.timeoutSeconds > 0 ? ['--time', String(Math.ceil(spec.timeoutSeconds / 60) + 1)] : []),
      ...(o.partition ? ['--partition', o.partition] : []),
      ...(o.account ? ['--account', o.account] : []),
      ...(o.qos ? ['--qos', o.qos] : []),
      ...(o.extraArgs ?? []),
      script,
    ];
    this.calls++;
    const out = await slurmCall(this.commands.sbatch, args, 30_000, submitEnvironment());
    // --parsable: "<id>" or "<id>;<cluster>"
    const id = out.trim().split(';')[0] ?? '';
    if (!/^\d+$/.test(id)) throw new Error(`sbatch answered "${out.trim()}" instead of a job id`);
    return id;
  }

  private async cancel(id: string): Promise<void> {
    this.calls++;
    try {
      await slurmCall(this.commands.scancel, [id]);
    } catch (error) {
      process.emitWarning(`scancel ${id}: ${(error as Error).message}`);
    }
  }

  /**
   * Follows a submitted job to its end through the poller; while Slurm keeps it PENDING, `onWaiting` is told its
   * pending reason at every poll (squeue's %r), and null once it has started.
   */
  private follow(id: string, spec: RunSpec, signal: AbortSignal, since: number, onWaiting?: RunHooks['onWaiting']): Promise<JobResult> {
    const files = slurmFilesOf(spec);
    const name = `gdflow-${spec.jobId}`;
    return new Promise<JobResult>((resolve) => {
      let cause: StopCause | undefined;
      let startedAt: number | undefined;
      let timer: NodeJS.Timeout | undefined;
      let unlisted = 0;
      let settled = false;
      /** Whether the job was last said to be pending in Slurm's queue. */
      let pending = false;
      const pendingIs = (reason: string | undefined) => {
        if (reason !== undefined) tell(onWaiting, slurmWait(reason));
        else if (pending) tell(onWaiting, null);
        pending = reason !== undefined;
      };
      const stop = (why: StopCause) => {
        if (cause) return;
        cause = why;
        void this.cancel(id).then(() => this.poller.soon(this.options.pollMs ?? 250));
      };
      const onAbort = () => stop('abort');
      const finish = (result: JobResult) => {
        if (settled) return;
        settled = true;
        unwatch();
        clearInterval(look);
        if (timer) clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      // In a container, the job's memory limit is the container's: podman's monitor leaves Slurm's job, and with it Slurm's limit.
      const inContainer = Boolean(this.container && spec.image);
      const memoryEnforcement = spec.memMb > 0 ? (inContainer ? ('container' as const) : ('slurm' as const)) : ('none' as const);
      const ended = async (row: QueueRow | undefined) => {
        const status = readSlurmStatus(files.status);
        const times = { startedAt: startedAt ?? row?.startedAt ?? since, endedAt: row?.endedAt ?? now(), memoryEnforcement };
        if (status && status.slurmJobId === id) {
          if (inContainer) {
            const ending = foregroundEnding(spec, status.exitCode, cause);
            if (!ending) {
              // The runtime's own failure (125: no such image, a bad option...), told on the job's stderr.
              return finish({
                outcome: 'failed',
                exitCode: null,
                signal: null,
                reason: `could not start the container (exit code ${status.exitCode}): ${await lastLine(spec.stderrLog)}`,
                ...times,
              });
            }
            finish({ ...ending, ...times });
            return;
          }
          // Slurm's memory kill may take the command and spare the script, which then writes the kill's 137.
          const outOfMemory = status.exitCode !== 0 && (await slurmSaysOutOfMemory(spec.stderrLog));
          finish({ ...endingOf(spec, status.exitCode, outOfMemory, cause), ...times });
          return;
        }
        if (cause === 'abort') return finish({ outcome: 'killed', exitCode: null, signal: null, reason: 'stopped', ...times });
        if (cause === 'timeout')
          return finish({ outcome: 'timed_out', exitCode: null, signal: null, reason: `timed out after ${spec.timeoutSeconds} s`, ...times });
        const state = row?.state;
        if (state === 'TIMEOUT')
          return finish({ outcome: 'timed_out', exitCode: null, signal: null, reason: `timed out: Slurm's time limit ended it`, ...times });
        if (state === 'OUT_OF_MEMORY' || (await slurmSaysOutOfMemory(spec.stderrLog))) {
          return finish({
            outcome: 'out_of_memory',
            exitCode: null,
            signal: null,
            reason: `out of memory: exceeded the ${spec.memMb} MB limit (Slurm killed the job, ${state ?? 'no state'})`,
            ...times,
          });
        }
        if (state === 'CANCELLED')
          return finish({ outcome: 'failed', exitCode: null, signal: null, reason: `cancelled in Slurm, not by gdflow (Slurm job ${id})`, ...times });
        if (state === 'NODE_FAIL' || state === 'PREEMPTED' || state === 'BOOT_FAIL')
          return finish({ outcome: 'lost', exitCode: null, signal: null, reason: `Slurm job ${id} ended ${state}`, ...times });
        if (state)
          return finish({
            outcome: 'failed',
            exitCode: null,
            signal: null,
            reason: `Slurm job ${id} ended ${state} without telling how (no status file)`,
            ...times,
          });
        finish({ outcome: 'lost', exitCode: null, signal: null, reason: `Slurm job ${id} is unknown to the controller and left no status file`, ...times });
      };
      const armTimeout = (start: number) => {
        if (startedAt !== undefined) return;
        startedAt = start;
        pendingIs(undefined);
        if (spec.timeoutSeconds > 0) {
          const left = (startedAt + spec.timeoutSeconds) * 1000 - Date.now();
          timer = setTimeout(() => stop('timeout'), Math.max(0, left));
        }
      };
      // The files the script writes: its start and its end, learned without a word to the controller.
      let lastRow: QueueRow | undefined;
      const lookAtFiles = () => {
        if (settled) return;
        if (startedAt === undefined) {
          const start = readSlurmStart(files.started, id);
          if (start !== undefined) armTimeout(start);
        }
        // After a scancel the status file may come before the job has left the node (COMPLETING): its end is then
        // the controller's word, so that nothing of the job is left in the queue when run resolves.
        if (cause) return;
        const status = readSlurmStatus(files.status);
        if (status && status.slurmJobId === id) void ended(lastRow);
      };
      const look = setInterval(lookAtFiles, this.options.pollMs ?? 250);
      const onRow = (row: QueueRow | undefined) => {
        if (settled) return;
        lastRow = row;
        if (row && row.name !== name) {
          // The id is another job's: this job's Slurm job is gone (a reused id after a cluster reset).
          return finish({
            outcome: 'lost',
            exitCode: null,
            signal: null,
            reason: `Slurm job ${id} is not this job's (it is "${row.name}")`,
            startedAt: since,
            endedAt: now(),
          });
        }
        if (!row) {
          // Unlisted: ended long ago (forgotten) or not yet visible. A status file says how it ended.
          // After our own scancel, unlisted means gone.
          const status = readSlurmStatus(files.status);
          if (cause || (status && status.slurmJobId === id) || ++unlisted >= (this.options.lostAfterPolls ?? 5)) void ended(undefined);
          return;
        }
        unlisted = 0;
        if (row.state === 'PENDING' && startedAt === undefined) pendingIs(row.reason);
        if (row.startedAt !== undefined && row.state !== 'PENDING') armTimeout(row.startedAt);
        if (ENDED_STATES.has(row.state)) void ended(row);
        else if (cause) this.poller.soon(this.options.pollMs ?? 250); // stopped and still on its node: ask again soon
      };
      const unwatch = this.poller.watch(id, onRow);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Tell the engine what a job waits for: a hook that throws must not break the job's following. */
function tell(onWaiting: RunHooks['onWaiting'], what: string | null): void {
  try {
    onWaiting?.(what);
  } catch (error) {
    process.emitWarning(`the onWaiting hook threw: ${(error as Error).message}`);
  }
}

/** slurmstepd writes this into the job's error file when it kills the job for its memory limit (OverMemoryKill). */
async function slurmSaysOutOfMemory(stderrLog: string): Promise<boolean> {
  if (!existsSync(stderrLog)) return false;
  try {
    const text = await readFile(stderrLog, 'utf8');
    return /slurmstepd[^\n]*: error: (Exceeded job memory limit|.*exceeded memory limit)/.test(text.slice(-64 * 1024));
  } catch {
    return false;
  }
}

/** The last line of a log (its last 4 KB), for a reason. */
async function lastLine(path: string): Promise<string> {
  try {
    const text = (await readFile(path, 'utf8')).slice(-4096).trim();
    return text.split('\n').pop() || 'no message';
  } catch {
    return 'no message';
  }
}
