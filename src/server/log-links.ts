import type { LogLinks } from '../domain/tasks/service.js';
import type { JobLogs } from '../engine/index.js';
import type { Job } from '../store/store.js';
import type { LinkSigner } from './link-signer.js';

/**
 * `Log_downloadURL`s: absolute links that carry their own expiry and signature, so the CLI can
 * fetch a job's log with a plain GET (docs/wire.md §4, §7).
 */
export class SignedLogLinks implements LogLinks {
  constructor(
    private readonly signer: LinkSigner,
    private readonly logs: JobLogs,
  ) {}

  async url(baseUrl: string, jobId: string): Promise<string> {
    return `${baseUrl}/logs/${encodeURIComponent(jobId)}/?${await this.signer.query(jobId)}`;
  }

  /** Whether a link is genuine and not expired; the reason when not. */
  check(jobId: string, expires: unknown, signature: unknown): Promise<string | undefined> {
    return this.signer.check(jobId, expires, signature);
  }

  hasLog(job: Job): Promise<boolean> {
    return this.logs.exists(job);
  }
}
