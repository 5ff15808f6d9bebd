/**
 * Which image a container job runs in: the tool's image reference resolved, under the pull policy, to the id
 * of an image present here and its digest. The job's container is then created from that id, so that the
 * digest recorded for the job is the one of the image that ran, even if the tag moves meanwhile.
 */
import { errorText, type CliResult, type ContainerCli } from './cli.js';

/** never: only images already here; missing: pull what is not here; always: pull before every job. */
export type PullPolicy = 'never' | 'missing' | 'always';
export const PULL_POLICIES: readonly PullPolicy[] = ['never', 'missing', 'always'];

export interface ResolvedImage {
  /** What `run` is given: the image's id. */
  id: string;
  /** The manifest digest (sha256:...) when the image has one, otherwise its content id (sha256:...). */
  digest: string;
  /** The image's ENTRYPOINT words ([] when it has none). */
  entrypoint: string[];
}

/** A job's image cannot be had; the message is the job's reason. */
export class ImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageError';
  }
}

/**
 * A reference a CLI can only take as an image: no option look-alike, no blanks or control characters
 * (they reach the CLI as one argument each, never through a shell, but "-v" would still be an option).
 */
export function checkImageReference(image: string): void {
  if (image.length > 512 || !/^[A-Za-z0-9][A-Za-z0-9._\-/:@+]*$/.test(image)) {
    throw new ImageError(`image ${JSON.stringify(image)} is not a valid image reference`);
  }
}

interface InspectedImage {
  Id?: string;
  Digest?: string;
  RepoDigests?: string[] | null;
  Config?: { Entrypoint?: string[] | string | null } | null;
}

function parseInspect(stdout: string): ResolvedImage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const image = (Array.isArray(parsed) ? parsed[0] : undefined) as InspectedImage | undefined;
  if (!image?.Id) return undefined;
  const repoDigest = image.RepoDigests?.find((d) => d.includes('@sha256:'))?.split('@')[1];
  // podman has the manifest digest as Digest; docker only in RepoDigests, and not at all for an image built
  // or imported here: then the id, itself the digest of the image's configuration, is what identifies it.
  const digest = image.Digest || repoDigest || (image.Id.startsWith('sha256:') ? image.Id : `sha256:${image.Id}`);
  const entrypoint = image.Config?.Entrypoint;
  return { id: image.Id, digest, entrypoint: Array.isArray(entrypoint) ? entrypoint.filter((w) => typeof w === 'string') : entrypoint ? [entrypoint] : [] };
}

export class ImageResolver {
  /** Pulls under way, by reference: jobs starting together share one. */
  private readonly pulls = new Map<string, Promise<CliResult>>();
  /**
   * Recent resolutions, by reference. An inspect is a CLI process (25-30 ms of CPU), a sixth of what a short
   * containerised job costs in all; a tag moved to another image is noticed once its entry is older than
   * `cacheMs`. (What ran is recorded right either way: the container is made from the resolved id.)
   */
  private readonly recent = new Map<string, { image: ResolvedImage; at: number }>();

  constructor(
    private readonly cli: ContainerCli,
    readonly policy: PullPolicy,
    private readonly cacheMs = 0,
  ) {}

  /**
   * The image to run `image` in, pulling it as the policy says; ImageError says why there is none. `onPull` is told
   * when a pull starts (true) and ends (false), so that the job can say it waits for it.
   */
  async resolve(image: string, signal: AbortSignal, onPull?: (pulling: boolean) => void): Promise<ResolvedImage> {
    checkImageReference(image);
    if (this.policy !== 'always') {
      const known = this.recent.get(image);
      if (known && Date.now() - known.at < this.cacheMs) return known.image;
      const here = await this.inspect(image);
      if (here) return this.remember(image, here);
      if (this.policy === 'never') throw new ImageError(`image ${image} is not present here, and the pull policy is "never"`);
    }
    onPull?.(true);
    const pulled = await this.pull(image, signal).finally(() => onPull?.(false));
    if (pulled.code !== 0) throw new ImageError(`image ${image} could not be pulled: ${errorText(pulled)}`);
    const after = await this.inspect(image);
    if (!after) throw new ImageError(`image ${image} was pulled but cannot be found`);
    return this.remember(image, after);
  }

  private remember(reference: string, image: ResolvedImage): ResolvedImage {
    if (this.cacheMs > 0) {
      this.recent.set(reference, { image, at: Date.now() });
      // Tools name a handful of images: drop old entries rather than bound the map's size.
      if (this.recent.size > 1000) for (const [key, entry] of this.recent) if (Date.now() - entry.at >= this.cacheMs) this.recent.delete(key);
    }
    return image;
  }

  private async inspect(image: string): Promise<ResolvedImage | undefined> {
    const result = await this.cli.run(['image', 'inspect', '--', image]);
    return result.code === 0 ? parseInspect(result.stdout) : undefined;
  }

  /**
   * One pull per reference at a time. A job stopped while it waits stops waiting; the pull goes on for the
   * other jobs (and the next run of this one).
   */
  private pull(image: string, signal: AbortSignal): Promise<CliResult> {
    let pull = this.pulls.get(image);
    if (!pull) {
      pull = this.cli.run(['pull', '--quiet', '--', image]).finally(() => this.pulls.delete(image));
      this.pulls.set(image, pull);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new PullAborted());
      signal.addEventListener('abort', onAbort, { once: true });
      void pull.then(
        (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}

/** The job was stopped while its image was being pulled. */
export class PullAborted extends Error {
  constructor() {
    super('stopped while the image was being pulled');
    this.name = 'PullAborted';
  }
}
