/**
 * A job's container run in the foreground of a script on another machine: what the Slurm executor's batch script
 * runs on a compute node (`program args`, so that the job lasts as long as the container), and how the end of such
 * a container reads. This is the container executors' contract with whoever runs their containers elsewhere; the
 * container itself is the same as the one the podman executor runs here (run-args.ts, script.ts).
 *
 * The image is named, not resolved here: the node's runtime finds it or pulls it (`--pull` of the pull policy).
 * The links and the environment file the container needs go into a directory on the file system the node shares;
 * the container's script writes its exit code and out-of-memory kills to the status file (script.ts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunSpec } from '../executor.js';
import { removePlaceholders } from '../mount-points.js';
import { endingOf, type Ending, type StopCause } from '../outcome.js';
import type { CliFlavour } from './cli.js';
import { checkImageReference, type PullPolicy } from './images.js';
import { checkContainerEnv, containerName, jobRunArgs, type RuntimeSettings } from './run-args.js';
import { readStatus, sawOutOfMemory } from './script.js';
import { containerFilesOf, createFile } from './watch.js';

/** The runtime a foreground container is run with (ContainerExecutor.foreground gives its own). */
export interface ForegroundRuntime extends RuntimeSettings {
  /** The runtime's CLI, as the node's PATH finds it or a path. */
  program: string;
  pullPolicy: PullPolicy;
  /** Time between SIGTERM and SIGKILL when the container is stopped. */
  killGraceMs: number;
}

/** A job's container as a command line for a script to run in the foreground. */
export interface ForegroundContainer {
  /** The runtime's CLI (podman or a docker-compatible one). */
  program: string;
  flavour: CliFlavour;
  /** The container's name (`gdflow-<job id>`): what the script stops it by. */
  name: string;
  /** `run` and its arguments, without --detach. */
  args: string[];
  /** Seconds between SIGTERM and SIGKILL when the container is stopped. */
  graceSeconds: number;
  /** Removes what the container needed (its links, its files, the mount points it made) once the job has ended. */
  cleanup: () => void;
}

/** Where the links and the environment file of a job's foreground container go, in the shared directory `dir`. */
function linkDirOf(dir: string): string {
  return join(dir, 'container-links');
}

/**
 * The container of job `spec`, whose working directory is `workDir` (its real path), to be run in the foreground
 * of a script; its links and environment file go into `dir`. Throws when the job names no valid image or has an
 * environment value a container cannot be given.
 */
export function foregroundContainer(spec: RunSpec, workDir: string, dir: string, runtime: ForegroundRuntime): ForegroundContainer {
  if (!spec.image) throw new Error('foreground: the job names no image');
  checkImageReference(spec.image);
  checkContainerEnv(spec);
  const files = containerFilesOf(spec);
  rmSync(files.dir, { recursive: true, force: true });
  for (const file of [files.stdout, files.stderr, files.status]) createFile(file);
  const linkDir = linkDirOf(dir);
  rmSync(linkDir, { recursive: true, force: true });
  const privateDir = () => {
    mkdirSync(linkDir, { recursive: true, mode: 0o700 });
    return linkDir;
  };
  const name = containerName(spec.jobId);
  const { program, pullPolicy, killGraceMs, ...settings } = runtime;
  const { args, placeholders } = jobRunArgs(spec, workDir, files, privateDir, settings, { name, imageId: spec.image, detach: false, pull: pullPolicy });
  return {
    program,
    flavour: settings.flavour,
    name,
    args,
    graceSeconds: Math.max(0, Math.ceil(killGraceMs / 1000)),
    cleanup: () => {
      rmSync(linkDir, { recursive: true, force: true });
      rmSync(files.dir, { recursive: true, force: true });
      removePlaceholders(placeholders);
    },
  };
}

/**
 * What a foreground container's `cleanup` removes, for a job whose script ran while no one held that function
 * (a worker that adopted the job after the one that submitted it died); the mount points are left.
 */
export function removeForegroundFiles(spec: RunSpec, dir: string): void {
  rmSync(linkDirOf(dir), { recursive: true, force: true });
  rmSync(containerFilesOf(spec).dir, { recursive: true, force: true });
}

/**
 * How a foreground container ended, from `code` (what `run` exited with, as the calling script saw it) and what the
 * container's script wrote; `cause` says whether it was stopped. Undefined when the container's script never ran
 * and the run failed: the runtime's own failure (125: no such image, a bad option...), which it told on stderr.
 */
export function foregroundEnding(spec: RunSpec, code: number, cause: StopCause | undefined): Ending | undefined {
  const status = readStatus(containerFilesOf(spec).status);
  if (!status && code !== 0 && !cause) return undefined;
  return endingOf(spec, code, sawOutOfMemory(status, false), cause);
}
