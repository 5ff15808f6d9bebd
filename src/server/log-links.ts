import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { LogLinks } from '../domain/tasks/service.js';
import type { JobLogs } from '../engine/index.js';
import type { Job, Store } from '../store/store.js';

/**
 * `Log_downloadURL`s: absolute links that carry their own expiry and signature, so the CLI can
 * fetch a job's log with a plain GET (docs/wire.md §4, §7). The key is kept in the store so that every
 * replica signs and checks alike.
 */
export class SignedLogLinks implements LogLinks {
  private key: Buffer | undefined;

  constructor(
    private readonly store: Store,
    private readonly logs: JobLogs,
    private readonly ttlSeconds: number,
  ) {}

  private async secret(): Promise<Buffer> {
    this.key ??= Buffer.from(await this.store.initSetting('log_url_key', randomBytes(32).toString('base64')), 'base64');
    return this.key;
  }

  private async signature(jobId: string, expires: number): Promise<string> {
    return createHmac('sha256', await this.secret())
      .update(`${jobId}\n${expires}`)
      .digest('base64url');
  }

  async url(baseUrl: string, jobId: string): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + this.ttlSeconds;
    return `${baseUrl}/logs/${encodeURIComponent(jobId)}/?expires=${expires}&signature=${await this.signature(jobId, expires)}`;
  }

  /** Whether a link is genuine and not expired; the reason when not. */
  async check(jobId: string, expires: unknown, signature: unknown): Promise<string | undefined> {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return 'the link has no valid expires and signature';
    if (Number(expires) < Date.now() / 1000) return 'the link has expired; ask for the job again for a fresh one';
    const expected = Buffer.from(await this.signature(jobId, Number(expires)));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'the link signature does not match';
    return undefined;
  }

  hasLog(job: Job): Promise<boolean> {
    return this.logs.exists(job);
  }
}
