import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/store.js';

/**
 * Links that carry their own expiry and signature, so that a client can fetch what they name with a plain GET
 * (`Log_downloadURL`, a WDL workflow's `source` and `dependencies`: docs/wire.md §4, §7, §8). The key is kept in the
 * store so that every replica signs and checks alike; the subject (a job id, `wdl:<version id>:<part>`) is signed
 * with the expiry, so a link to one thing is no link to another.
 */
export class LinkSigner {
  private key: Buffer | undefined;

  constructor(
    private readonly store: Store,
    readonly ttlSeconds: number,
  ) {}

  private async secret(): Promise<Buffer> {
    this.key ??= Buffer.from(await this.store.initSetting('log_url_key', randomBytes(32).toString('base64')), 'base64');
    return this.key;
  }

  private async signature(subject: string, expires: number): Promise<string> {
    return createHmac('sha256', await this.secret())
      .update(`${subject}\n${expires}`)
      .digest('base64url');
  }

  /** The query that makes a link to `subject` valid for ttlSeconds from now: `expires=..&signature=..`. */
  async query(subject: string): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + this.ttlSeconds;
    return `expires=${expires}&signature=${await this.signature(subject, expires)}`;
  }

  /** Whether a link is genuine and not expired; the reason when not. */
  async check(subject: string, expires: unknown, signature: unknown): Promise<string | undefined> {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return 'the link has no valid expires and signature';
    if (Number(expires) < Date.now() / 1000) return 'the link has expired; ask for it again for a fresh one';
    const expected = Buffer.from(await this.signature(subject, Number(expires)));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'the link signature does not match';
    return undefined;
  }
}
