import type { CacheParts } from '../cache/key.js';
import type { ToolJobSpec } from './job-spec.js';

/**
 * What a tool job's call-cache key is made of (domain/cache/key.ts), once its inputs are known by their hashes (sandbox
 * path → hash, docs/tasks.md "Call caching") and the image by its digest: the engine makes it before a job runs
 * (engine/call-cache.ts), and an activation for the jobs it can know the inputs of (rules/cached-at-activation.ts).
 */
export function cachePartsOf(spec: ToolJobSpec, inputs: Record<string, string>, imageDigest: string | null): CacheParts {
  return {
    v: 1,
    tool: spec.tool ?? { name: '', version: 0, digest: '' },
    image: spec.image,
    imageDigest,
    inputs,
    parameters: spec.parameters ?? {},
    command: spec.command,
    stdin: spec.stdin ?? null,
    stdout: spec.stdout ?? null,
  };
}
