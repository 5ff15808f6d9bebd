import type { Config } from '../../src/config/config.js';
import { CONTAINER_KINDS, ensureTinyImage, skipWithoutRuntime, TINY_IMAGE } from './containers.js';

/**
 * The executors end-to-end tests run jobs on: the default bwrap sandbox and the container executors (jobs in the
 * tiny busybox image). A container executor that cannot run here says why it is skipped (helpers/containers.ts).
 */
export interface E2eExecutor {
  name: 'bwrap' | 'podman' | 'docker';
  /** The image the tests' tools name (bwrap ignores it). */
  image: string;
  skip: string | undefined;
  /** Test server settings that select the executor. */
  config: Partial<Record<keyof Config, string | number>>;
  /** Make what its jobs need (the image) before a server runs them. */
  prepare(): void;
}

export const E2E_EXECUTORS: E2eExecutor[] = [
  { name: 'bwrap', image: 'debian:bookworm', skip: undefined, config: {}, prepare: () => undefined },
  ...CONTAINER_KINDS.map((kind) => ({
    name: kind,
    image: TINY_IMAGE,
    skip: skipWithoutRuntime(kind),
    config: { executor: kind },
    prepare: () => ensureTinyImage(kind),
  })),
];
