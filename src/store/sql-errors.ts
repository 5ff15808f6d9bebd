/**
 * Recognise constraint violations from either driver, so the store can turn them into its own
 * errors without asking which database it runs on.
 */
function codeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
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
