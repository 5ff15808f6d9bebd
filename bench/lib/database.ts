import { launchPostgres } from '../../test/helpers/postgres.js';

/**
 * The store a benchmark runs on: BENCH_DATABASE=sqlite (default: the embedded file in the server's data root) or
 * postgres (a throwaway PostgreSQL cluster, started the way the tests start theirs, but with PostgreSQL's default
 * durability, as the SQLite store syncs every commit too; stopped at the end), or a postgres:// URL of a database
 * that exists (used as it is).
 */
export interface BenchDatabase {
  name: 'sqlite' | 'postgres';
  /** Extra `gdflow serve` / `gdflow admin` arguments. */
  args: string[];
  /** Arguments for an empty database of its own (SQLite: none, every server has its own data root). */
  fresh(name: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function benchDatabase(kind = process.env.BENCH_DATABASE ?? 'sqlite'): Promise<BenchDatabase> {
  if (kind === 'sqlite') return { name: 'sqlite', args: [], fresh: () => Promise.resolve([]), stop: () => Promise.resolve() };
  if (/^postgres(ql)?:\/\//.test(kind)) {
    // An existing database (to profile a server, or to measure another PostgreSQL): used as it is, for everything.
    return { name: 'postgres', args: ['--database', kind], fresh: () => Promise.resolve(['--database', kind]), stop: () => Promise.resolve() };
  }
  if (kind !== 'postgres') throw new Error(`BENCH_DATABASE must be sqlite, postgres or a postgres:// URL, not '${kind}'`);
  const cluster = await launchPostgres({ durable: true });
  return {
    name: 'postgres',
    args: ['--database', await cluster.createDatabase('gdflow_bench')],
    fresh: async (name) => ['--database', await cluster.createDatabase(name)],
    stop: () => cluster.stop(),
  };
}
