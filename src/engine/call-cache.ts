import { constants as fsConstants } from 'node:fs';
import { copyFile, link, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheKeyOf, type CacheParts } from '../domain/cache/key.js';
import { parseJobSpec, type ToolJobSpec } from '../domain/tasks/job-spec.js';
import type { DataStore } from '../data/index.js';
import type { CallCacheStore, FileHash, Job, TaskStore } from '../store/store.js';
import { hashFile, stillMatches } from './file-hash.js';
import type { Layout } from './layout.js';

/**
 * Call caching (docs/tasks.md, "Call caching"): before a tool job runs, its key is made of the tool, the image
 * digest, its inputs' content hashes, its parameters and its command; a succeeded job of the same account with the
 * same key whose outputs are still there unchanged gives this job its outputs (hard links, else copies: never moved).
 */

/** What a job brings to the cache from its task. */
export interface CacheContext {
  account: string;
  /** Reuse from any earlier job of the account (the server's, the task's and the tool's choice). */
  enabled: boolean;
  /** Reuse from this earlier task's jobs first, even with caching off (a resume, docs/tasks.md "Resume"). */
  referenceTask: string | null;
  /** The output hashes an upstream job of the same task recorded, by job id. */
  upstream(jobId: string): Record<string, FileHash> | null;
}

export interface CacheHit {
  source: Job;
  sourceSpec: ToolJobSpec;
}

/** How many earlier jobs with the same key are looked at (newest first) for one whose outputs are intact. */
const CANDIDATES = 8;

export class CallCache {
  constructor(
    private readonly store: CallCacheStore & Pick<TaskStore, 'listJobs'>,
    private readonly dataStore: DataStore,
    private readonly layout: Layout,
  ) {}

  /** The parts of a job's key: its inputs hashed (stored items once, kept in the store; upstream outputs as recorded). */
  async partsOf(spec: ToolJobSpec, taskId: string, context: CacheContext, imageDigest: string | null): Promise<CacheParts> {
    const inputs: Record<string, string> = {};
    for (const mount of spec.mounts) {
      const source = mount.source;
      if (source.kind === 'data') inputs[mount.sandboxPath] = await this.dataHash(source.account, source.path);
      else {
        const path = join(this.layout.workDir(taskId, source.nodeId), source.path);
        const recorded = context.upstream(source.jobId)?.[source.path];
        inputs[mount.sandboxPath] = recorded && (await stillMatches(path, recorded)) ? recorded.sha256 : (await hashFile(path)).sha256;
      }
    }
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

  keyOf(parts: CacheParts): string {
    return cacheKeyOf(parts);
  }

  /** A stored item's content hash: computed once, kept while its size and modification time stay the same. */
  private async dataHash(account: string, path: string): Promise<string> {
    const file = await this.dataStore.resolve({ account, path });
    const known = await this.store.getContentHash(account, path);
    if (known && (await stillMatches(file, known))) return known.sha256;
    const hash = await hashFile(file);
    await this.store.putContentHash(account, path, hash);
    return hash.sha256;
  }

  /**
   * A job to reuse: the reference task's job with this key first, then the newest of the account's. Returns why
   * there was none when an earlier job had the key but cannot be used (its outputs are gone or changed).
   */
  async find(key: string, jobId: string, outputs: number, context: CacheContext): Promise<{ hit?: CacheHit; note?: string }> {
    const candidates: Job[] = [];
    if (context.referenceTask !== null) {
      candidates.push(...(await this.store.listJobs(context.referenceTask)).filter((j) => j.cacheKey === key && j.status === 'succeeded'));
    }
    if (context.enabled) candidates.push(...(await this.store.findCachedJobs(context.account, key, CANDIDATES)));
    let note: string | undefined;
    for (const job of candidates) {
      if (job.id === jobId) continue;
      let spec;
      try {
        spec = parseJobSpec(job.spec);
      } catch {
        continue;
      }
      if (spec.kind !== 'tool' || spec.outputFiles.length !== outputs) continue;
      if (await this.intact(job, spec)) return { hit: { source: job, sourceSpec: spec } };
      note ??= `job ${job.id} had the same key, but its outputs are gone or changed`;
    }
    return note === undefined ? {} : { note };
  }

  private async intact(job: Job, spec: ToolJobSpec): Promise<boolean> {
    const hashes = job.outputHashes;
    if (!hashes) return false;
    const dir = this.layout.workDir(job.taskId, job.nodeId);
    for (const file of spec.outputFiles) {
      const recorded = hashes[file];
      if (!recorded || !(await stillMatches(join(dir, file), recorded))) return false;
    }
    return true;
  }

  /**
   * Give a job the outputs (and logs) of the job it reuses: hard links where the file system allows, copies
   * otherwise. Returns the new files' hashes.
   */
  async reuse(hit: CacheHit, spec: ToolJobSpec, taskId: string): Promise<Record<string, FileHash>> {
    const from = this.layout.workDir(hit.source.taskId, hit.source.nodeId);
    const to = this.layout.workDir(taskId, spec.nodeId);
    const hashes: Record<string, FileHash> = {};
    for (const [i, file] of spec.outputFiles.entries()) {
      const source = join(from, hit.sourceSpec.outputFiles[i]!);
      const target = join(to, file);
      await placeCopy(source, target);
      const recorded = hit.source.outputHashes![hit.sourceSpec.outputFiles[i]!]!;
      hashes[file] = (await stillMatches(target, recorded)) ? recorded : await hashFile(target);
    }
    // Links too: a succeeded job never runs again in place, so neither log is ever written again.
    for (const log of ['stdoutLog', 'stderrLog'] as const) {
      await placeCopy(this.layout[log](hit.source.taskId, hit.source.nodeId), this.layout[log](taskId, spec.nodeId)).catch(() => undefined);
    }
    return hashes;
  }

  /** The content hashes of a job's outputs once it succeeded (the next jobs' keys are made of them). */
  async hashOutputs(spec: ToolJobSpec, taskId: string): Promise<Record<string, FileHash>> {
    const dir = this.layout.workDir(taskId, spec.nodeId);
    const hashes: Record<string, FileHash> = {};
    for (const file of spec.outputFiles) hashes[file] = await hashFile(join(dir, file));
    return hashes;
  }
}

/** A hard link of `source` at `target`, or a copy (by reflink where possible) across file systems. */
async function placeCopy(source: string, target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  await rm(target, { force: true });
  try {
    await link(source, target);
  } catch {
    // another file system, or links not allowed here
    await copyFile(source, target, fsConstants.COPYFILE_FICLONE);
  }
}
