/**
 * Recognise constraint violations from either driver, so the store can turn them into its own
 * errors without asking which database it runs on.
 */
function codeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = error.code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** better-sqlite3: SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY; pg: 23505. */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * pg: 23503. better-sqlite3: SQLITE_CONSTRAINT_FOREIGNKEY, except that an ON DELETE RESTRICT
 * violation is reported as SQLITE_CONSTRAINT_TRIGGER with the message "FOREIGN KEY constraint failed".
 */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = codeOf(error);
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true;
  return code === 'SQLITE_CONSTRAINT_TRIGGER' && error instanceof Error && error.message.includes('FOREIGN KEY');
}

/**
 * Transient conflicts worth retrying the whole transaction for: SQLite busy, including SQLITE_BUSY_SNAPSHOT (a
 * transaction that read, then wanted to write after another process committed); PostgreSQL serialization
 * failures and deadlocks.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = codeOf(error);
  return code?.startsWith('SQLITE_BUSY') === true || code === '40001' || code === '40P01';
}

/** Node's socket errors: the database's host or port does not answer, or dropped the connection. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether the database could not serve a statement for a reason of its own, not the statement's: unreachable, shutting
 * down, out of connections, memory or disk, or busy through every retry. A request that met one may be sent again;
 * the server answers 503 ServiceUnavailable, not 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined) {
    // PostgreSQL classes 08 (connection exception), 53 (insufficient resources), 57P (operator intervention: shutdown,
    // cannot connect now), and 55000 as raised for a database that is not accepting connections.
    if (/^(08|53|57P)/.test(code) || code === '55000') return true;
    if (isTransientConflict(error) || NETWORK_CODES.has(code)) return true;
    // SQLite: the disk is full or failing, or the file cannot be opened or written.
    return /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY)/.test(code);
  }
  // pg's pool and client raise these without a code.
  return error instanceof Error && /^(timeout exceeded when trying to connect|Connection terminated)/.test(error.message);
}
