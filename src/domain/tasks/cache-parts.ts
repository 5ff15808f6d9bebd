import { canonicalJson, sha256, type CacheParts } from '../cache/key.js';
import { workKeyParts } from '../cache/work-key.js';
import type { ToolJobSpec } from './job-spec.js';

/** Where a tool job sees its working directory (docs/tasks.md, "How a job runs"). */
const WORK_DIR = '/var/data';

/**
 * What a tool job's call-cache key is made of (domain/cache/work-key.ts), once its inputs are known by their hashes
 * (sandbox path → hash, docs/tasks.md "Call caching") and the image by its digest: the engine makes it before a job runs
 * (engine/call-cache.ts), and an activation for the jobs it can know the inputs of (rules/cached-at-activation.ts).
 * The tool's name, version and parameters are not in it: what they decide is in the rendered command, the image, the
 * outputs and the network access, which are. `fixed`: a TES task's inputs, at the paths the task chose.
 */
export function cachePartsOf(spec: ToolJobSpec, placed: Record<string, string>, imageDigest: string | null, fixed: Record<string, string> = {}): CacheParts {
  // A TES task's job makes its directories and roots before it runs: part of its work, and no other language's.
  const tes = spec.tes ? [`tes:${sha256(canonicalJson({ roots: spec.tes.roots, dirs: spec.tes.dirs, executors: spec.tes.executors }))}`] : [];
  return workKeyParts({
    script: spec.command,
    shell: 'sh',
    workDir: WORK_DIR,
    placed,
    fixed,
    outputs: [...spec.outputFiles, ...tes],
    outputDirsMade: true,
    ...(spec.stdin !== undefined ? { stdin: spec.stdin } : {}),
    ...(spec.stdout !== undefined ? { stdout: spec.stdout } : {}),
    env: {},
    image: spec.image,
    imageDigest,
    entrypoint: false,
    network: spec.network,
  });
}
