import type { AuditEntry } from '../store/store.js';
import type { Caller } from './access.js';

/**
 * Who asks for a write: the signer of a request, or the operator running `gdflow admin` (no account, no key; the
 * operating-system user). Every write the domain makes for one records an audit entry (docs/operating.md, "Audit
 * log"), in the write's own transaction.
 */
export interface Actor {
  requestId: string;
  account: string | null;
  keyId: string | null;
  user: string;
  /** Where the request came from; none for the operator. */
  address?: string;
}

export const actorOf = (caller: Caller): Actor => ({
  requestId: caller.requestId ?? '',
  account: caller.accountName,
  keyId: caller.accessKeyId,
  user: caller.userName,
  ...(caller.clientAddress !== undefined ? { address: caller.clientAddress } : {}),
});

/** The entry of a write that is made (outcome 'ok'); `account` owns the target. */
export function audited(actor: Actor, operation: string, account: string, target: string): AuditEntry {
  return {
    requestId: actor.requestId,
    actorAccount: actor.account,
    actorKeyId: actor.keyId,
    actorUser: actor.user,
    account,
    operation,
    target,
    outcome: 'ok',
    reason: '',
    clientAddress: actor.address ?? null,
  };
}

/** The entry of a write that was refused, with the error's code and reason. */
export function refused(actor: Actor, operation: string, account: string, target: string, code: string, reason: string): AuditEntry {
  return { ...audited(actor, operation, account, target), outcome: code, reason };
}
