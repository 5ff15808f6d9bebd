import { resolve } from 'node:path';

/**
 * What a `--database` value names, decided without opening anything (the configuration checks it
 * before the server starts): empty for the SQLite file in the data root, `sqlite:<file>` or a plain
 * path for another SQLite file, `postgres://` or `postgresql://` for PostgreSQL.
 */
export type DatabaseLocation = { kind: 'sqlite'; file: string | undefined } | { kind: 'postgres'; url: string };

/** The location, or a sentence saying why the value is not one. */
export function parseDatabase(value: string): DatabaseLocation | { problem: string } {
  if (value === '') return { kind: 'sqlite', file: undefined };
  if (/^postgres(ql)?:\/\//i.test(value)) {
    // pg would fail on it only when connecting, as if the server were down: say what is wrong with the URL now.
    if (!URL.canParse(value))
      return { problem: `'${redact(value)}' is not a valid URL (postgres://USER[:PASSWORD]@HOST:PORT/DB; percent-encode special characters)` };
    return { kind: 'postgres', url: value };
  }
  if (/^sqlite:/i.test(value)) {
    // sqlite:<file>, and the URL forms sqlite:///abs/path and sqlite://rel/path.
    const file = value.slice('sqlite:'.length).replace(/^\/\/(?=.)/, '');
    return file === '' || file === '//' ? { problem: 'sqlite: needs a file name (sqlite:<file>)' } : { kind: 'sqlite', file };
  }
  // Any other URL scheme (mysql://, postgres+ssl://, mysql:host/db, ...) is a mistake, not a file name.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value);
  if (scheme) {
    return {
      problem: `'${scheme[1]}:' databases are not supported: use postgres://user@host:port/db, sqlite:<file> or a file path (./${scheme[1]}:... for a file whose name has a colon)`,
    };
  }
  return { kind: 'sqlite', file: value };
}

/** The URL without its password, for messages. */
const redact = (url: string): string => url.replace(/^([a-z]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');

/** Which store a process opens, for what it says on start (the password and the URL's options left out). */
export interface StoreDescription {
  kind: 'sqlite' | 'postgres';
  /** The SQLite file's absolute path, or `postgres://USER@HOST:PORT/DB`. */
  where: string;
}

export function describeStore(location: DatabaseLocation, dataDir: string): StoreDescription {
  if (location.kind === 'sqlite') {
    // A file named in --database is where the process's working directory puts it, as SQLite opens it.
    const file = location.file === undefined ? resolve(dataDir, 'gdflow.db') : location.file === ':memory:' ? ':memory:' : resolve(location.file);
    return { kind: 'sqlite', where: file };
  }
  // The query may hold a password too (?password=...): only the user, host, port and database are said.
  const url = new URL(location.url);
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  return { kind: 'postgres', where: `postgres://${user}${url.host}${url.pathname === '/' ? '' : url.pathname}` };
}
