/**
 * Errors the domain raises. They carry no HTTP status: the server's error catalogue decides how
 * each kind is rendered for the operation in which it happened (INTERFACE.md §7 gives different
 * codes and messages per operation).
 */

export type DomainErrorKind = 'invalid' | 'not_found' | 'forbidden' | 'unsupported';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  /** Text naming the cause; it fills `{reason}` in the operation's message pattern. */
  readonly reason: string;
  /**
   * What the error is about when that differs from the operation's own resource (a job route
   * whose task does not exist reports a missing task, not a missing job).
   */
  readonly subject: 'Task' | 'Job' | 'Data' | undefined;
  constructor(reason: string, subject?: 'Task' | 'Job' | 'Data') {
    super(reason);
    this.reason = reason;
    this.subject = subject;
    this.name = new.target.name;
  }
}

/** The request is malformed or breaks a rule; the reason names the field or value. */
export class InvalidInput extends DomainError {
  readonly kind = 'invalid' as const;
}

/** The named resource does not exist (or the caller may not see it). */
export class NotFound extends DomainError {
  readonly kind = 'not_found' as const;
}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {
  readonly kind = 'forbidden' as const;
}

/** The request is well formed, but asks for something gdflow does not do (a CWL feature it does not support); the reason names it. */
export class Unsupported extends DomainError {
  readonly kind = 'unsupported' as const;
}

export const invalid = (reason: string): InvalidInput => new InvalidInput(reason);
export const notFound = (reason: string, subject?: 'Task' | 'Job' | 'Data'): NotFound => new NotFound(reason, subject);
export const forbidden = (reason: string): Forbidden => new Forbidden(reason);
