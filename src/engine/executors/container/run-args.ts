/**
 * The `run` command line of a job's container, and its name.
 *
 * What the job gets (the same promises as the bwrap sandbox where a container can keep them):
 * - the image's file system, read-only, with a fresh tmpfs at /tmp and /var/tmp (exec allowed: Java tools unpack
 *   native libraries there);
 * - its working directory read-write at /var/data or its workDirPath (its working directory and HOME), each mount at its path
 *   (inputs read-only), its log files and status file at /.gdflow (script.ts);
 * - no network (`--network none`: only lo) unless the tool asks for it, then the runtime's default network
 *   (podman: its bridge, with NAT to the outside; the host's own loopback services stay out of reach);
 * - the tool's cpu as a CFS quota and its memory as the container's memory limit, without swap;
 * - uid 0 in the container, which is the server's user on the host (rootful runtime run by root, or rootless
 *   podman); a docker daemon run for a non-root server gets the server's uid and gid instead, so that the files
 *   the job writes belong to the server's user either way;
 * - no capabilities, no privilege gain through setuid files, hostname "gdflow", an environment of the image's
 *   variables plus HOME, TMPDIR, LANG and the spec's (those from a file: values never appear on a command line).
 */
import { createHash } from 'node:crypto';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunSpec } from '../executor.js';
import { missingComponents } from '../mount-points.js';
import { mountRelative, workDirPathOf } from '../spec-checks.js';
import type { CliFlavour } from './cli.js';
import { containerCommand, STATUS_PATH, STDERR_PATH, STDOUT_PATH } from './script.js';

/** The label that marks gdflow's containers, with the job id as its value. */
export const JOB_LABEL = 'gdflow.job';

const VALID_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * `gdflow-<job id>`: what the container is found by after a restart. Job ids are already valid names; anything
 * else is made one, with a hash of the original so that two ids never share a name.
 */
export function containerName(jobId: string): string {
  const name = `gdflow-${jobId}`;
  if (VALID_NAME.test(name) && name.length <= 200) return name;
  const hash = createHash('sha256').update(jobId).digest('hex').slice(0, 12);
  return `gdflow-${jobId.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 180)}-${hash}`;
}

/** Whether `name` is one containerName can make (an external id read back from the store is checked with it). */
export function isContainerName(name: string): boolean {
  return name.startsWith('gdflow-') && VALID_NAME.test(name) && name.length <= 200;
}

/** A bind: `source` is a host path the CLI's mount syntax can carry (see bindSource). */
export interface Bind {
  source: string;
  destination: string;
  readOnly: boolean;
}

export interface RunPlan {
  flavour: CliFlavour;
  name: string;
  imageId: string;
  spec: RunSpec;
  /** The working directory, the three files at /.gdflow, then the spec's mounts. */
  workDir: string;
  /** The spec's roots (RunSpec.roots), bound read-write before the mounts. */
  roots?: Bind[];
  logs: { stdout: string; stderr: string; status: string };
  mounts: Bind[];
  /** --ulimit values, e.g. nofile=1024:4096. */
  ulimits: string[];
  /** user[:group] in the container. */
  user: string;
  /** A file of NAME=value lines for the spec's environment. */
  envFile?: string;
  /** podman: where its monitor (conmon) writes its pid, to be watched for the container's end. */
  monitorPidFile?: string;
  /**
   * false: `run` stays in the foreground until the container ends (the Slurm executor's batch script, whose
   * lifetime is then the job's). Default true: detached, the container belongs to the runtime.
   */
  detach?: boolean;
  /** `--pull`: never (the default: the executor has resolved `imageId` itself), or the runtime's own policy. */
  pull?: 'never' | 'missing' | 'always';
  /** The image's ENTRYPOINT words, given to the command as its positional parameters (RunSpec.imageEntrypoint). */
  entrypoint?: string[];
}

/** `--mount` of a bind; commas separate the mount's fields, so a destination holding one cannot be mounted. */
function mountArg(bind: Bind): string {
  if (/[,\n]/.test(bind.destination) || /[,\n]/.test(bind.source)) {
    throw new Error(`mount: "${bind.destination}" cannot be mounted in a container (a comma or newline in the path)`);
  }
  return `type=bind,source=${bind.source},destination=${bind.destination}${bind.readOnly ? ',readonly' : ''}`;
}

export function runArgs(plan: RunPlan): string[] {
  const { spec } = plan;
  // --rm: the runtime removes the container when it ends, whether or not a worker is watching then.
  const args = [
    'run',
    ...(plan.detach === false ? [] : ['--detach']),
    '--rm',
    '--name',
    plan.name,
    '--label',
    `${JOB_LABEL}=${spec.jobId}`,
    `--pull=${plan.pull ?? 'never'}`,
  ];
  if (plan.monitorPidFile) args.push('--conmon-pidfile', plan.monitorPidFile);
  if (!spec.network) args.push('--network', 'none');
  if (spec.cpu > 0) args.push('--cpus', String(spec.cpu));
  if (spec.memMb > 0) args.push('--memory', `${Math.round(spec.memMb)}m`, '--memory-swap', `${Math.round(spec.memMb)}m`);
  for (const ulimit of plan.ulimits) args.push('--ulimit', ulimit);
  args.push('--user', plan.user);
  const tmpfs = 'rw,exec,nosuid,nodev,mode=1777';
  // A root at /tmp (a TES task's, docs/ga4gh.md) is the task's own /tmp, in its job directory, instead of a tmpfs.
  const tmpIsRoot = plan.roots?.some((r) => r.destination === '/tmp') ?? false;
  args.push('--read-only', ...(tmpIsRoot ? [] : ['--tmpfs', `/tmp:${tmpfs}`]), '--tmpfs', `/var/tmp:${tmpfs}`);
  args.push('--cap-drop', 'all', '--security-opt', 'no-new-privileges');
  args.push('--hostname', 'gdflow', '--stop-signal', 'SIGTERM', '--log-driver', 'none');
  const workDirPath = workDirPathOf(spec);
  args.push('--workdir', workDirPath);
  args.push('--env', `HOME=${workDirPath}`, '--env', 'TMPDIR=/tmp', '--env', 'LANG=C.UTF-8');
  if (plan.envFile) args.push('--env-file', plan.envFile);
  const binds: Bind[] = [
    { source: plan.workDir, destination: workDirPath, readOnly: false },
    { source: plan.logs.stdout, destination: STDOUT_PATH, readOnly: false },
    { source: plan.logs.stderr, destination: STDERR_PATH, readOnly: false },
    { source: plan.logs.status, destination: STATUS_PATH, readOnly: false },
    ...(plan.roots ?? []),
    ...plan.mounts,
  ];
  for (const bind of binds) args.push('--mount', mountArg(bind));
  args.push('--entrypoint', '/bin/sh', plan.imageId, ...containerCommand(spec.command, spec.stdin, spec.stdout, plan.entrypoint));
  return args;
}

/** What every container of an executor gets from its runtime and configuration. */
export interface RuntimeSettings {
  flavour: CliFlavour;
  /** --ulimit values (container/ulimits.ts). */
  ulimits: string[];
  /** user[:group] in the container. */
  user: string;
}

/** A bind source the CLI's --mount syntax carries as it is; others are bound through a symlink (see bindSource). */
const PLAIN_SOURCE = /^[^,"'\n\r]*$/;

/**
 * `path` as a bind source the CLI can parse: as it is, or (holding a comma or a quote, which --mount's
 * syntax cannot carry) through a symlink with a plain name in a private directory. The mount follows it.
 */
function bindSource(path: string, privateDir: () => string): string {
  if (PLAIN_SOURCE.test(path)) return path;
  const dir = privateDir();
  const link = join(dir, `bind-${Math.random().toString(36).slice(2)}`);
  symlinkSync(path, link);
  return link;
}

/**
 * The `run` arguments of a job's container, and the mount points the runtime will make in its working directory
 * (mount-points.ts: removed after the job). The links and the environment file it needs go into privateDir(),
 * which the caller removes once the container has started (its mounts made, its environment read).
 */
export function jobRunArgs(
  spec: RunSpec,
  workDir: string,
  files: { stdout: string; stderr: string; status: string },
  privateDir: () => string,
  runtime: RuntimeSettings,
  plan: Pick<RunPlan, 'name' | 'imageId' | 'monitorPidFile' | 'detach' | 'pull' | 'entrypoint'>,
): { args: string[]; placeholders: string[] } {
  const placeholders: string[] = [];
  const mounts: Bind[] = spec.mounts.map((mount) => {
    const rel = mountRelative(mount.sandboxPath, workDirPathOf(spec), Boolean(spec.image));
    if (rel !== undefined) placeholders.push(...missingComponents(workDir, rel));
    return { source: bindSource(mount.hostPath, privateDir), destination: mount.sandboxPath, readOnly: mount.readOnly };
  });
  let envFile: string | undefined;
  if (spec.env && Object.keys(spec.env).length > 0) {
    envFile = join(privateDir(), 'env');
    writeFileSync(
      envFile,
      Object.entries(spec.env)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
      { mode: 0o600 },
    );
  }
  const args = runArgs({
    ...plan,
    ...runtime,
    spec,
    workDir: bindSource(workDir, privateDir),
    logs: { stdout: bindSource(files.stdout, privateDir), stderr: bindSource(files.stderr, privateDir), status: bindSource(files.status, privateDir) },
    mounts,
    roots: (spec.roots ?? []).map((root) => ({ source: bindSource(root.hostPath, privateDir), destination: root.sandboxPath, readOnly: false })),
    ...(envFile ? { envFile } : {}),
  });
  return { args, placeholders };
}

/** Refuses environment values a container cannot be given: the runtime reads them from a file of lines. */
export function checkContainerEnv(spec: RunSpec): void {
  for (const value of Object.values(spec.env ?? {})) {
    if (/[\n\r]/.test(value)) throw new Error('env: a container cannot be given a value with a line break');
  }
}
