/**
 * Container runtimes for the tests of the podman and docker executors, and the images they run jobs in.
 *
 * podman is a component (helpers/components.ts): missing, its tests skip with the reason, or fail when
 * GDFLOW_REQUIRE_COMPONENTS=1 (CI installs it). docker is not: a docker daemon cannot run on every machine
 * that runs the tests (CI's cannot), so without one the docker variants always skip, saying why.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { skipWithout } from './components.js';
import { repoRoot } from './paths.js';

export type ContainerKind = 'podman' | 'docker';

/** Busybox in an empty root (scripts/images/build-tiny.sh): a shell and utilities, no bash, perl or apt. */
export const TINY_IMAGE = 'localhost/gdflow-tiny:latest';
/** Debian minbase with fastp, bwa and samtools (scripts/images/build-demo.sh); tests use it only when it is built. */
export const DEMO_IMAGE = 'localhost/gdflow-demo:latest';
/**
 * The images the CWL conformance suite's DockerRequirement tests name, as it spells them: here the stand-ins of
 * scripts/images/build-cwl-standins.sh (built by .ci/run: about 1.5 minutes, root and the Debian archive needed).
 */
export const CWL_STANDIN_IMAGES = {
  debian: 'docker.io/debian:stable-slim',
  python: 'docker.io/python:3-slim',
  bash: 'docker.io/bash:4.4',
  alpine: 'docker.io/alpine:latest',
} as const;

/** Why the CWL stand-ins cannot be used with `kind` here, or undefined when they can. */
export function cwlStandInsUnavailable(kind: ContainerKind): string | undefined {
  const missing = Object.values(CWL_STANDIN_IMAGES).filter((image) => !hasImage(kind, image));
  if (missing.length === 0) return undefined;
  return `the CWL stand-in images ${missing.join(', ')} are not built here (scripts/images/build-cwl-standins.sh; .ci/run builds them)`;
}

function cli(kind: ContainerKind, args: string[]) {
  return spawnSync(kind, args, { encoding: 'utf8', timeout: 60_000 });
}

const unavailable = new Map<ContainerKind, string | undefined>();

/** Why `kind` cannot run containers here, or undefined when it can. */
export function runtimeUnavailable(kind: ContainerKind): string | undefined {
  if (!unavailable.has(kind)) {
    const version = cli(kind, ['--version']);
    let why: string | undefined;
    if (version.error || version.status !== 0) {
      why = kind === 'podman' ? 'podman is not installed (apt-get install podman runc)' : 'the docker CLI is not installed';
    } else {
      const info = cli(kind, ['info']);
      if (info.status !== 0) why = `${kind} cannot reach a container engine (${kind} info: ${(info.stderr || info.stdout).trim().split('\n').pop()})`;
    }
    unavailable.set(kind, why);
  }
  return unavailable.get(kind);
}

/** The `skip` option of a test that needs `kind`. */
export function skipWithoutRuntime(kind: ContainerKind): string | undefined {
  const why = runtimeUnavailable(kind);
  if (kind === 'podman') return skipWithout(why);
  // Never a failure: CI installs podman, not docker (no docker daemon can run there).
  return why && `${why}: the docker variant runs only where a docker daemon can (not a failure, also in CI)`;
}

export const CONTAINER_KINDS: ContainerKind[] = ['podman', 'docker'];

/** Whether `image` is present for `kind`. */
export function hasImage(kind: ContainerKind, image: string): boolean {
  return cli(kind, ['image', 'inspect', image]).status === 0;
}

/**
 * The tiny image, built with the repository's script when it is missing. The image then stays in the runtime's
 * store for the next test files and runs; the script's lock makes test files starting together wait for one build.
 */
export function ensureTinyImage(kind: ContainerKind): void {
  if (hasImage(kind, TINY_IMAGE)) return;
  const built = spawnSync(join(repoRoot(), 'scripts', 'images', 'build-tiny.sh'), [], {
    encoding: 'utf8',
    env: { ...process.env, CONTAINER_RUNTIME: kind, IMAGE: TINY_IMAGE },
    timeout: 120_000,
  });
  if (built.status !== 0) throw new Error(`building ${TINY_IMAGE} for ${kind} failed: ${built.stderr || built.stdout}`);
}

/**
 * Tag the demo image (fastp, bwa, samtools) with the names a workflow's DockerRequirements give (biocontainers',
 * which cannot be pulled here), as scripts/images/build-cwl-standins.sh tags the conformance suite's stand-ins.
 */
export function tagDemoImageAs(kind: ContainerKind, names: string[]): void {
  for (const name of names) {
    const tagged = cli(kind, ['tag', DEMO_IMAGE, name]);
    if (tagged.status !== 0) throw new Error(`${kind} tag ${DEMO_IMAGE} ${name} failed: ${tagged.stderr}`);
  }
}

/** Why the demo image cannot run in `kind`'s containers here (not built: scripts/images/build-demo.sh), or undefined. */
export function demoImageUnavailable(kind: ContainerKind): string | undefined {
  return runtimeUnavailable(kind) ?? (hasImage(kind, DEMO_IMAGE) ? undefined : `${DEMO_IMAGE} is not built (scripts/images/build-demo.sh; .ci/run builds it)`);
}

/** Names of gdflow's containers (every state) whose name contains `part`: what a test checks was left behind. */
export function gdflowContainers(kind: ContainerKind, part = ''): string[] {
  const listed = cli(kind, ['ps', '--all', '--filter', 'label=gdflow.job', '--format', '{{.Names}}']);
  if (listed.status !== 0) throw new Error(`${kind} ps failed: ${listed.stderr}`);
  return listed.stdout.split('\n').filter((name) => name !== '' && name.includes(part));
}

/** The state of a container (running, exited...), or undefined when there is none of that name. */
export function containerState(kind: ContainerKind, name: string): { status: string; id: string } | undefined {
  const inspected = cli(kind, ['inspect', '--type', 'container', '--format', '{{.State.Status}} {{.Id}}', name]);
  if (inspected.status !== 0) return undefined;
  const [status, id] = inspected.stdout.trim().split(' ');
  return { status: status!, id: id! };
}

/** The digest the executor records for `image` (podman: its manifest digest; docker: a repo digest or its id). */
export function imageDigest(kind: ContainerKind, image: string): string {
  const inspected = cli(kind, ['image', 'inspect', image]);
  const [info] = JSON.parse(inspected.stdout) as Array<{ Id: string; Digest?: string; RepoDigests?: string[] | null }>;
  const repo = info!.RepoDigests?.find((d) => d.includes('@sha256:'))?.split('@')[1];
  return info!.Digest || repo || (info!.Id.startsWith('sha256:') ? info!.Id : `sha256:${info!.Id}`);
}
