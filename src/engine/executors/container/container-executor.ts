/**
 * The container executors (`podman`, `docker`): each job runs in a container of its tool's image, through a
 * docker-compatible CLI. What the job sees is in run-args.ts, what its container runs in script.ts. Jobs whose
 * tool names no image run on the host sandbox (bwrap) as with `--executor bwrap`. The Slurm executor runs a job's
 * container in the foreground of its batch script instead (foreground.ts).
 *
 * A container is started detached (`run --detach --rm`): it belongs to the runtime, not to the worker, so it keeps
 * running when the worker dies. Its name (`gdflow-<job id>`) is the job's external id: a worker that takes the
 * task over finds the container by it and waits for it (adopt) instead of running the job again. A run that finds
 * a container of that name left by an earlier attempt removes it first. Its end is known from the status file its
 * script writes and from the runtime's monitor (watch.ts); the runtime removes it when it ends (`--rm`),
 * and the status file, on the host, tells how it ended even when no worker watched it.
 *
 * Stop and timeout: `stop` with the grace period (SIGTERM to every process of the job, SIGKILL after it); nothing
 * is left behind once `run` or `adopt` has resolved.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Executor, ExecutorCapabilities, JobResult, RunSpec, RunHooks } from '../executor.js';
import { removePlaceholders } from '../mount-points.js';
import { endingOf, type StopCause } from '../outcome.js';
import { BwrapExecutor, type BwrapExecutorOptions } from '../process/index.js';
import { prepareWorkDir } from '../spec-checks.js';
import { ContainerCli, errorText, saysNoSuchContainer, type CliFlavour } from './cli.js';
import { foregroundContainer, type ForegroundContainer } from './foreground.js';
import { ImageError, ImageResolver, PullAborted, type PullPolicy, type ResolvedImage } from './images.js';
import { checkContainerEnv, containerName, isContainerName, JOB_LABEL, jobRunArgs, type RuntimeSettings } from './run-args.js';
import { readStatus, sawOutOfMemory, type ContainerStatus } from './script.js';
import { defaultUlimits } from './ulimits.js';
import { containerFilesOf, createFile, untilEnded, WatchedProcess, type ContainerFiles } from './watch.js';
import { imagePullWait } from '../../../domain/tasks/waiting.js';

export type ContainerKind = 'podman' | 'docker';

export interface ContainerExecutorOptions {
  /** The CLI to drive: a path or a name in PATH. Default: the executor's name (podman or docker). */
  runtime?: string;
  /** Default 'missing'. */
  pullPolicy?: PullPolicy;
  /** Time between SIGTERM and SIGKILL when a job is stopped or times out (whole seconds for the CLI). Default 5000 ms. */
  killGraceMs?: number;
  /** `--ulimit` values for every container; default: podman gets the server's own limits (ulimits.ts). */
  ulimits?: string[];
  /** How long an image reference's resolution is reused before it is resolved again (policies never and missing). Default 10 s. */
  imageCacheMs?: number;
  /** Options of the host sandbox that runs jobs without an image. */
  hostSandbox?: BwrapExecutorOptions;
}

interface ContainerState {
  status: string;
  /** Seconds since the epoch; undefined when the runtime has no start time. */
  startedAt: number | undefined;
  /** The job the container was started for (its label). */
  job: string | undefined;
}

const now = (): number => Date.now() / 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runtime states in which the container's command has not started. */
const NOT_STARTED = new Set(['created', 'configured', 'initialized']);

function parseTime(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const ms = Date.parse(text);
  // podman and docker write the zero time (year 1) for "never"
  return Number.isFinite(ms) && ms > 0 ? ms / 1000 : undefined;
}

/** A job's word on its image's pull (docs/tasks.md, "Why a job waits"): waiting for it while it lasts, then no more. */
function pullNotes(image: string, onWaiting: RunHooks['onWaiting']): ((pulling: boolean) => void) | undefined {
  return onWaiting && ((pulling) => onWaiting(pulling ? imagePullWait(image) : null));
}

export class ContainerExecutor implements Executor {
  readonly capabilities: ExecutorCapabilities = { sandbox: true, network_isolation: true };
  private readonly cli: ContainerCli;
  private readonly images: ImageResolver;
  private readonly host: BwrapExecutor;
  /** Why the host sandbox cannot run jobs here (found by check()); jobs without an image then fail with it. */
  private hostProblem: string | undefined;
  private ulimitValues: string[] | undefined;

  constructor(
    readonly name: ContainerKind,
    private readonly options: ContainerExecutorOptions = {},
  ) {
    this.cli = new ContainerCli(options.runtime ?? name, name);
    this.images = new ImageResolver(this.cli, options.pullPolicy ?? 'missing', options.imageCacheMs ?? 10_000);
    this.host = new BwrapExecutor({ killGraceMs: options.killGraceMs, ...options.hostSandbox });
  }

  /** podman or docker: what the CLI said it is (check() asks it), else what the executor was named. */
  get flavour(): CliFlavour {
    return this.cli.flavour;
  }

  /** The CLI program this executor runs. */
  get program(): string {
    return this.cli.program;
  }

  async check(): Promise<void> {
    const version = await this.cli.run(['--version']);
    if (version.code !== 0) {
      throw new Error(
        `the container runtime "${this.cli.configured}" cannot be run: ${errorText(version)} ` +
          `(Debian: apt-get install podman runc; or set --container-runtime to a docker-compatible CLI)`,
      );
    }
    // podman's `docker` shim answers as podman: its flags are podman's.
    this.cli.flavour = /podman/i.test(version.stdout) ? 'podman' : 'docker';
    const info = await this.cli.run(['info', '--format', this.cli.flavour === 'podman' ? '{{.Host.OCIRuntime.Name}}' : '{{.ServerVersion}}']);
    if (info.code !== 0) throw new Error(`${this.cli.program} cannot reach its container engine: ${errorText(info)}`);
    try {
      await this.host.check();
      this.hostProblem = undefined;
    } catch (error) {
      this.hostProblem = error instanceof Error ? error.message : String(error);
    }
  }

  async close(): Promise<void> {
    await this.host.close();
  }

  async run(spec: RunSpec, signal: AbortSignal, hooks: RunHooks = {}): Promise<JobResult> {
    if (!spec.image) return this.runOnHost(spec, signal, hooks);
    const startedAt = now();
    const workDir = await prepareWorkDir(spec);
    checkContainerEnv(spec);
    const files = containerFilesOf(spec);
    // Nothing of an earlier attempt's container may be taken for this one's.
    rmSync(files.dir, { recursive: true, force: true });
    for (const file of [files.stdout, files.stderr, files.status]) createFile(file);
    if (signal.aborted) return this.notStarted(spec, startedAt, 'killed', 'stopped', files);

    let image: ResolvedImage;
    try {
      image = await this.images.resolve(spec.image, signal, pullNotes(spec.image, hooks.onWaiting));
    } catch (error) {
      if (error instanceof PullAborted || signal.aborted) return this.notStarted(spec, startedAt, 'killed', 'stopped', files);
      if (error instanceof ImageError) return this.notStarted(spec, startedAt, 'failed', error.message, files);
      throw error;
    }

    const name = containerName(spec.jobId);
    let placeholders: string[];
    let linkDir: string | undefined;
    const privateDir = () => (linkDir ??= mkdtempSync(join(tmpdir(), 'gdflow-container-')));
    let started;
    try {
      let args: string[];
      ({ args, placeholders } = jobRunArgs(spec, workDir, files, privateDir, this.runtimeSettings(), {
        name,
        imageId: image.id,
        ...(spec.imageEntrypoint ? { entrypoint: image.entrypoint } : {}),
        ...(this.cli.flavour === 'podman' ? { monitorPidFile: files.monitorPid } : {}),
      }));
      // Started in the job's container directory, which podman's monitor keeps as its working directory: what it
      // writes there (ContainerFiles.monitorOom) is the job's, and removed with the rest of the job's files.
      started = await this.cli.run(args, { cwd: files.dir });
      if (started.code !== 0 && /already in use|is already in use|Conflict/i.test(started.stderr)) {
        // Left by an earlier attempt of this job (its worker died before the job's state said so): it goes.
        await this.remove(name);
        started = await this.cli.run(args, { cwd: files.dir });
      }
    } finally {
      // The mounts are made when the container starts: the links and the environment file are no longer needed.
      if (linkDir) rmSync(linkDir, { recursive: true, force: true });
    }
    if (started.code !== 0) {
      // A container that was created but could not start (no /bin/sh in the image, say) is removed too.
      await this.remove(name);
      removePlaceholders(placeholders);
      return this.notStarted(spec, startedAt, 'failed', `could not start the container: ${errorText(started)}`, files);
    }
    hooks.onStarted?.({ externalId: name, imageDigest: image.digest });
    return this.follow(name, spec, signal, startedAt, files, placeholders);
  }

  async imageDigest(image: string, signal: AbortSignal, onWaiting?: RunHooks['onWaiting']): Promise<string> {
    return (await this.images.resolve(image, signal, pullNotes(image, onWaiting))).digest;
  }

  async adopt(externalId: string, spec: RunSpec, signal: AbortSignal): Promise<JobResult> {
    const t = now();
    const files = containerFilesOf(spec);
    const lost = (reason: string): JobResult => ({ outcome: 'lost', exitCode: null, signal: null, reason, startedAt: t, endedAt: now() });
    if (!isContainerName(externalId)) return lost(`"${externalId}" is not the name of a container this executor started`);
    const state = await this.inspect(externalId);
    if (!state) {
      // Ended while no worker watched, and removed by the runtime: its script's status tells how it ended.
      const status = readStatus(files.status);
      if (!status) return lost(`its container ${externalId} is gone`);
      return this.ended(spec, t, now(), status, existsSync(files.monitorOom), undefined, files, []);
    }
    if (state.job !== spec.jobId) return lost(`container ${externalId} is not this job's`);
    if (NOT_STARTED.has(state.status)) {
      await this.remove(externalId);
      return lost(`its container ${externalId} never started`);
    }
    return this.follow(externalId, spec, signal, state.startedAt ?? t, files, []);
  }

  /**
   * The container of a job that another scheduler runs on another machine, in the foreground of its script (the
   * Slurm executor's batch script): see foreground.ts. What this executor adds is its runtime: the CLI, its flavour
   * (as check() found it), the pull policy, the stop grace period, the ulimits and the container's user.
   */
  foreground(spec: RunSpec, workDir: string, dir: string): ForegroundContainer {
    return foregroundContainer(spec, workDir, dir, {
      ...this.runtimeSettings(),
      program: this.cli.program,
      pullPolicy: this.options.pullPolicy ?? 'missing',
      killGraceMs: this.options.killGraceMs ?? 5000,
    });
  }

  /** A job whose tool names no image: on the host sandbox, as `--executor bwrap` runs it. */
  private runOnHost(spec: RunSpec, signal: AbortSignal, hooks: RunHooks): Promise<JobResult> {
    if (this.hostProblem) {
      const t = now();
      return Promise.resolve({
        outcome: 'failed',
        exitCode: null,
        signal: null,
        reason: `the tool names no container image, so the job would run on the host sandbox, which cannot run here: ${this.hostProblem}`,
        startedAt: t,
        endedAt: t,
      });
    }
    return this.host.run(spec, signal, hooks);
  }

  /**
   * Wait for the container to end (stopping it on abort or timeout) and to be gone, and turn its end into the
   * result. `startedAt` is when the job started (the timeout counts from it, also for an adopted container).
   */
  private async follow(name: string, spec: RunSpec, signal: AbortSignal, startedAt: number, files: ContainerFiles, placeholders: string[]): Promise<JobResult> {
    let cause: StopCause | undefined;
    let stopping: Promise<unknown> | undefined;
    const stop = (why: StopCause) => {
      if (cause) return;
      cause = why;
      const grace = Math.max(0, Math.ceil((this.options.killGraceMs ?? 5000) / 1000));
      stopping = this.cli.run(['stop', '-t', String(grace), name]);
    };
    const onAbort = () => stop('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) stop('abort');
    let timer: NodeJS.Timeout | undefined;
    if (spec.timeoutSeconds > 0) timer = setTimeout(() => stop('timeout'), Math.max(0, (startedAt + spec.timeoutSeconds - now()) * 1000));
    const monitor = this.monitorOf(name, files);
    let status: ContainerStatus | undefined;
    try {
      status = await untilEnded(files, monitor.gone, 250);
    } finally {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(timer);
    }
    const endedAt = now();
    await stopping;
    await monitor.removed();
    return this.ended(spec, startedAt, endedAt, status, existsSync(files.monitorOom), cause, files, placeholders);
  }

  /** The result of a container that has ended and is gone; its files are removed. */
  private ended(
    spec: RunSpec,
    startedAt: number,
    endedAt: number,
    status: ContainerStatus | undefined,
    monitorSawOom: boolean,
    cause: StopCause | undefined,
    files: ContainerFiles,
    placeholders: string[],
  ): JobResult {
    rmSync(files.dir, { recursive: true, force: true });
    removePlaceholders(placeholders);
    const memoryEnforcement = spec.memMb > 0 ? 'container' : 'none';
    if (status || cause) {
      // Stopped: the script may have been SIGKILLed before its status (a command ignoring SIGTERM); the cause says it all.
      const code = status?.exitCode ?? 137;
      const ending = endingOf(spec, code, sawOutOfMemory(status, monitorSawOom), cause);
      return { ...ending, ...(status ? {} : { exitCode: null }), startedAt, endedAt, memoryEnforcement };
    }
    if (monitorSawOom) return { ...endingOf(spec, 137, sawOutOfMemory(status, monitorSawOom), undefined), startedAt, endedAt, memoryEnforcement };
    // Killed from outside (podman kill, a reboot of the runtime...) before its script could say how it ended.
    return {
      outcome: 'failed',
      exitCode: null,
      signal: null,
      reason: 'the container ended without telling how (killed from outside gdflow?)',
      startedAt,
      endedAt,
      memoryEnforcement,
    };
  }

  /**
   * How the end of a container shows besides its status file (watch.ts): podman's monitor exiting, or
   * a docker `wait` returning; and, after it, that the container is gone.
   */
  private monitorOf(name: string, files: ContainerFiles): { gone: () => boolean | Promise<boolean>; removed: () => Promise<void> } {
    if (this.cli.flavour === 'podman') {
      const conmon = WatchedProcess.fromPidFile(files.monitorPid);
      if (conmon) {
        return {
          gone: () => !conmon.alive(),
          // conmon exits once the runtime has removed the container (--rm): wait for that, briefly.
          removed: async () => {
            for (let waited = 0; conmon.alive(); waited += 10) {
              if (waited > 10_000) return this.remove(name);
              await sleep(10);
            }
          },
        };
      }
    }
    // docker, or no monitor to watch: `wait` (a process for the whole run), then make sure the container is gone.
    let waited = false;
    void this.cli.run(['wait', name]).then(() => (waited = true));
    return { gone: () => waited, removed: () => this.remove(name) };
  }

  /** The container's state, or undefined when there is no container of that name. */
  private async inspect(name: string): Promise<ContainerState | undefined> {
    for (let attempt = 0; ; attempt++) {
      const result = await this.cli.run(['inspect', '--type', 'container', name]);
      if (result.code === 0) {
        try {
          const [info] = JSON.parse(result.stdout) as Array<{ State?: Record<string, unknown>; Config?: { Labels?: Record<string, string> | null } }>;
          const state = info?.State ?? {};
          return {
            status: typeof state.Status === 'string' ? state.Status.toLowerCase() : 'unknown',
            startedAt: parseTime(state.StartedAt),
            job: info?.Config?.Labels?.[JOB_LABEL],
          };
        } catch {
          // unreadable output: ask again below
        }
      } else if (saysNoSuchContainer(result)) return undefined;
      if (attempt >= 4) throw new Error(`cannot inspect container ${name}: ${errorText(result)}`);
      await sleep(500 * (attempt + 1));
    }
  }

  /** Remove a container, whatever its state (kill it at once if it runs). */
  private async remove(name: string): Promise<void> {
    const args = this.cli.flavour === 'podman' ? ['rm', '--force', '--time', '0', name] : ['rm', '--force', name];
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await this.cli.run(args);
      if (result.code === 0 || saysNoSuchContainer(result)) return;
      await sleep(200 * (attempt + 1));
    }
  }

  /** What every container of this executor gets: the CLI's flavour, the ulimits and the user. */
  private runtimeSettings(): RuntimeSettings {
    return { flavour: this.cli.flavour, ulimits: this.ulimits(), user: this.containerUser() };
  }

  private ulimits(): string[] {
    if (this.options.ulimits) return this.options.ulimits;
    this.ulimitValues ??= this.cli.flavour === 'podman' ? defaultUlimits() : [];
    return this.ulimitValues;
  }

  /** uid 0 in the container is the server's user with podman (rootful as root, or rootless); a docker daemon needs it said. */
  private containerUser(): string {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    return this.cli.flavour === 'podman' || uid === 0 ? '0:0' : `${uid}:${gid}`;
  }

  private notStarted(spec: RunSpec, startedAt: number, outcome: 'killed' | 'failed', reason: string, files: ContainerFiles): JobResult {
    rmSync(files.dir, { recursive: true, force: true });
    return { outcome, exitCode: null, signal: null, reason, startedAt, endedAt: now(), memoryEnforcement: spec.memMb > 0 ? 'container' : 'none' };
  }
}
