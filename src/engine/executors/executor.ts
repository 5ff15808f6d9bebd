/**
 * The executor contract: how the engine runs one job's shell command on this machine.
 *
 * A job sees its working directory at `/var/data` (docs/wire.md §5: tool templates write paths such as
 * `/var/data/fastqc`). Executors differ in how much they isolate the command from the host:
 * `bwrap` (process/bwrap-executor.ts) runs it in a bubblewrap sandbox; `host` (process/host-executor.ts) runs it
 * as a plain process; `podman` and `docker` (container/) run it in a container of the tool's image; `slurm`
 * (slurm/) hands it to a Slurm cluster. Every one of them passes the contract suite (test/engine/executor.test.ts).
 */

export interface Mount {
  hostPath: string;
  /**
   * Absolute, normalised, strictly under `/var/data` (e.g. `/var/data/inputs/reads.fq`), or in the inputs area
   * `/var/lib/cwl` (that directory or below it: where deferred jobs stage their inputs outside the working
   * directory, docs/tasks.md "Deferred jobs"). Mounts are made in order: a mount below another one comes after it.
   * The sandboxed executors (bwrap, podman, docker) bind both; the host executor, which has no sandbox, takes mounts
   * under `/var/data` only (a deferred job on it stages its inputs at host paths instead). A job in a container (one
   * with an `image`) may also mount at any other absolute path outside /proc, /sys and /dev (CWL's InitialWorkDir
   * entries at absolute paths), and under its `workDirPath` instead of `/var/data`.
   */
  sandboxPath: string;
  readOnly: boolean;
}

/**
 * What an executor runs: one job's command with host paths filled in (job-runner.ts makes it from the domain's
 * RunSpec, the persisted plan of a job, once the working directory and mounts are known).
 */
export interface RunSpec {
  jobId: string;
  /** Host directory bound read-write at /var/data; the command's working directory. Created if missing. */
  workDir: string;
  /**
   * Where a job in a container sees its working directory (and HOME) instead of /var/data (CWL's DockerRequirement
   * `dockerOutputDirectory`); its mounts are then under it rather than under /var/data. Only with an `image`.
   */
  workDirPath?: string;
  /** Shell command, run as /bin/sh -c <command>. */
  command: string;
  /**
   * Directories bound read-write at absolute paths outside /var/data (a TES task's container paths, docs/ga4gh.md):
   * hostPath is inside workDir; sandboxPath is absolute and normalised, and no system directory. Each is the task's
   * own (a root of /tmp replaces the sandbox's tmpfs). Mounts may be below them.
   */
  roots?: Array<{ hostPath: string; sandboxPath: string }>;
  /** Extra binds, e.g. input files read-only at /var/data/inputs/... (sandboxPath is absolute, under /var/data). */
  mounts: Mount[];
  /**
   * Sandbox paths (under /var/data) connected to stdin / receiving stdout; stdout goes to the stdout log otherwise.
   * The executor opens them as the command would (inside the sandbox for bwrap), so a symlink a job planted
   * cannot make the server open a host file.
   */
  stdin?: string;
  stdout?: string;
  /** Host paths of the two log files (created/truncated by the executor). */
  stdoutLog: string;
  stderrLog: string;
  /** CPU cores (a CFS quota when the cgroup v1 cpu controller is usable; otherwise advisory). */
  cpu: number;
  /** Memory limit in MiB; 0 or less = no limit. How it is enforced depends on the executor's `memoryLimit` option. */
  memMb: number;
  network: boolean;
  /** 0 = no limit. */
  timeoutSeconds: number;
  env?: Record<string, string>;
  /**
   * The tool's container image (`requirements.container.image`), e.g. `quay.io/biocontainers/samtools:1.16`.
   * The container executors run the job in it; empty or absent, they run it on the host sandbox. The process
   * executors ignore it.
   */
  image?: string;
  /**
   * In the image's container, the command's positional parameters ("$@") are the image's ENTRYPOINT words (none
   * when it has none), so that a command `"$@" prog args` runs as `docker run IMAGE prog args` would. Without it, or
   * outside a container, there are none.
   */
  imageEntrypoint?: boolean;
}

/**
 * 'lost': the job cannot be found or followed any more (an adopted container or cluster job that is gone without a
 * trace of how it ended); the engine runs it again from scratch.
 * 'out_of_memory': the job went over its memory limit and was killed for it (a cgroup's OOM kill, the watchdog,
 * a container's OOM kill, Slurm's OUT_OF_MEMORY, or exit code 137 under a memory limit): what a retry policy
 * answers with more memory (docs/tasks.md, "Retries").
 */
export type JobOutcome = 'succeeded' | 'failed' | 'out_of_memory' | 'killed' | 'timed_out' | 'lost';

export interface JobResult {
  outcome: JobOutcome;
  exitCode: number | null;
  signal: string | null;
  /** Human reason, e.g. "exit code 3", "killed by SIGKILL", "timed out after 5 s", "stopped". */
  reason: string;
  /** Seconds since epoch, with fraction. */
  startedAt: number;
  endedAt: number;
  /**
   * Highest total resident memory of the job's processes seen by sampling (bytes), when sampled at least once.
   * An approximation: shared pages are counted once per process.
   */
  peakRssBytes?: number;
  /** How memMb was enforced for this run. */
  memoryEnforcement?: MemoryEnforcement;
}

/** 'container': the container's own memory limit (its cgroup, set by the container runtime); 'slurm': the cluster's (`--mem`). */
export type MemoryEnforcement = 'cgroup-v1' | 'watchdog' | 'container' | 'slurm' | 'none';

export interface ExecutorCapabilities {
  sandbox: boolean;
  network_isolation: boolean;
}

/** What the engine is told while a job runs. */
export interface RunHooks {
  /**
   * Called once, when the job's first process has been spawned (the launcher reported it exec'd), before `run`
   * resolves: the moment the job is really running. Never called when the job does not start (an aborted signal,
   * a log file that cannot be opened, a program that cannot be executed). `pid` is the first process's pid on the
   * host (bwrap: the bwrap process). `externalId` is the handle of a job that can outlive the worker (a Slurm job
   * id, a container name): the engine records it so that a later owner of the task can adopt the job instead of
   * running it again. `imageDigest` is the digest of the container image the job runs in, as resolved for this run
   * (what provenance and call caching key on). It must not throw (an exception is reported as a process warning and ignored).
   */
  onStarted?: (info: { pid?: number; externalId?: string; imageDigest?: string }) => void;
  /**
   * What the job waits for before its command can run, outside gdflow's scheduler: "waiting for its image X to be
   * pulled", "waiting for Slurm to start it: Resources (...)" (domain/tasks/waiting.ts makes these); null once it
   * waits no more. Called whenever the executor learns it, the same text again included; it must not throw.
   */
  onWaiting?: (what: string | null) => void;
}

export interface Executor {
  readonly name: string;
  readonly capabilities: ExecutorCapabilities;
  /** Run to the end. Aborting `signal` kills the job's whole process tree and resolves with outcome 'killed'. */
  run(spec: RunSpec, signal: AbortSignal, hooks?: RunHooks): Promise<JobResult>;
  /**
   * Wait for a job this executor started earlier, possibly from another worker process, by the handle reported
   * through onStarted; as `run` from there on. Executors whose jobs die with their worker (local processes)
   * leave it out, and such jobs run again instead.
   */
  adopt?(externalId: string, spec: RunSpec, signal: AbortSignal, hooks?: Pick<RunHooks, 'onWaiting'>): Promise<JobResult>;
  /**
   * The digest of the image a job of `image` would run in now (pulling it as the pull policy says), for the job's
   * call-cache key; null when this executor runs jobs in no image. Executors that never do leave it out.
   */
  imageDigest?(image: string, signal: AbortSignal, onWaiting?: RunHooks['onWaiting']): Promise<string | null>;
  /** Checks that the executor can work on this machine (e.g. bwrap present and usable); throws an Error saying what is missing. */
  check(): Promise<void>;
  /** Release what the executor keeps between jobs (idle cgroups); called when the engine stops. */
  close?(): Promise<void>;
}

/** Where the job's working directory appears to the command. */
export const SANDBOX_DATA_DIR = '/var/data';

/** Where the sandboxed executors may also mount: inputs staged outside the working directory (see Mount). */
export const SANDBOX_INPUTS_DIR = '/var/lib/cwl';
