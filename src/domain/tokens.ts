import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessToken, Store } from '../store/store.js';
import { DEFAULT_PROJECT } from './access.js';
import { operator, refusalCode } from './accounts.js';
import { audited, refused, type Actor } from './audit.js';
import { DomainError, invalid, notFound } from './errors.js';

/**
 * Bearer tokens of the GA4GH APIs (docs/ga4gh.md, "Authentication"): `gdflow admin create-token ACCOUNT [--project P]
 * [--expires DURATION]` makes one, `gdflow admin revoke-token ID` ends it. A token reads `gdt_<id>_<secret>`: the id
 * (16 hex digits) finds it, the secret (64 hex digits) proves it; only the secret's SHA-256 is stored, so the store
 * cannot give a token away. Every make and revoke is in the audit log.
 */

const TOKEN = /^gdt_([0-9a-f]{16})_([0-9a-f]{64})$/;

/** The longest life a token may be given: a year. Default: 30 days. */
export const MAX_TOKEN_SECONDS = 366 * 86400;
export const DEFAULT_TOKEN_SECONDS = 30 * 86400;

const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The id and secret of a token as a client sends it, or undefined when it is not one gdflow makes. */
export function parseToken(text: string): { id: string; secret: string } | undefined {
  const match = TOKEN.exec(text);
  return match ? { id: match[1]!, secret: match[2]! } : undefined;
}

/** Why a stored token does not let `secret` in now, or undefined when it does. */
export function tokenRefusal(token: AccessToken | null | undefined, secret: string, nowSeconds: number): string | undefined {
  if (!token) return 'the token does not exist';
  const given = Buffer.from(sha256Hex(secret), 'hex');
  const kept = Buffer.from(token.secretSha256, 'hex');
  if (given.length !== kept.length || !timingSafeEqual(given, kept)) return 'the token does not exist';
  if (token.revokedAt !== null) return `token ${token.id} has been revoked`;
  if (token.expiresAt <= nowSeconds) return `token ${token.id} expired at ${new Date(token.expiresAt * 1000).toISOString()}`;
  return undefined;
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** A token's life from `--expires`: a number with s, m, h, d or w (`90m`, `12h`, `30d`), at most a year. */
export function parseTokenLife(text: string): number {
  const match = /^(\d{1,7})([smhdw])$/.exec(text.trim());
  if (!match) throw invalid(`--expires '${text.slice(0, 64)}' is not a duration such as 12h, 30d or 8w`);
  const seconds = Number(match[1]) * DURATION_UNITS[match[2]!]!;
  if (seconds < 60) throw invalid(`--expires '${text}' is shorter than a minute`);
  if (seconds > MAX_TOKEN_SECONDS) throw invalid(`--expires '${text}' is longer than a year (366d), the longest a token may live`);
  return seconds;
}

export interface NewTokenResult {
  token: string;
  id: string;
  account: string;
  project: string;
  expiresAt: number;
}

export class TokenService {
  constructor(private readonly store: Store) {}

  async createToken(
    accountName: string,
    options: { project?: string; lifeSeconds?: number; user?: string } = {},
    actor: Actor = operator(),
  ): Promise<NewTokenResult> {
    const project = options.project ?? DEFAULT_PROJECT;
    return this.refusable(actor, 'CreateToken', accountName, `${accountName}/${project}`, async () => {
      const account = await this.store.getAccount(accountName);
      if (!account) throw notFound(`account '${accountName}' does not exist`);
      if (!(await this.store.getProject(accountName, project))) throw notFound(`project '${project}' does not exist in account '${accountName}'`);
      const id = randomBytes(8).toString('hex');
      const secret = randomBytes(32).toString('hex');
      const expiresAt = Math.floor(Date.now() / 1000) + (options.lifeSeconds ?? DEFAULT_TOKEN_SECONDS);
      const user = options.user ?? accountName;
      await this.store.createAccessToken(
        { id, secretSha256: sha256Hex(secret), accountId: account.id, projectName: options.project ?? null, userName: user, expiresAt },
        audited(actor, 'CreateToken', accountName, `token ${id} (project ${project}, user ${user}, expires ${new Date(expiresAt * 1000).toISOString()})`),
      );
      return { token: `gdt_${id}_${secret}`, id, account: accountName, project, expiresAt };
    });
  }

  /** Revoke a token by its id (or by the whole token, whose id is read from it). */
  async revokeToken(idOrToken: string, actor: Actor = operator()): Promise<AccessToken> {
    const id = parseToken(idOrToken)?.id ?? idOrToken;
    const token = /^[0-9a-f]{16}$/.test(id) ? await this.store.getAccessToken(id) : undefined;
    if (!token) {
      const reason = `token '${id.slice(0, 64)}' does not exist`;
      await this.store.recordAudit(refused(actor, 'RevokeToken', '', id.slice(0, 64), 'NotFound', reason));
      throw notFound(reason);
    }
    await this.store.revokeAccessToken(id, audited(actor, 'RevokeToken', token.accountName, `token ${id} (user ${token.userName})`));
    return token;
  }

  private async refusable<T>(actor: Actor, operation: string, account: string, target: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof DomainError) await this.store.recordAudit(refused(actor, operation, account, target, refusalCode(error), error.reason));
      throw error;
    }
  }
}
