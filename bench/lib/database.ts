import { launchPostgres } from '../../test/helpers/postgres.js';

/**
 * The store a benchmark runs on: BENCH_DATABASE=sqlite (default: the embedded file in the server's data root) or
 * postgres (a throwaway PostgreSQL cluster, started the way the tests start theirs, but with PostgreSQL's default
 * durability, as the SQLite store syncs every commit too; stopped at the end).
 */
export interface BenchDatabase {
  name: 'sqlite' | 'postgres';
  /** Extra `gdflow serve` / `gdflow admin` arguments. */
  args: string[];
  stop(): Promise<void>;
}

export async function benchDatabase(kind = process.env.BENCH_DATABASE ?? 'sqlite'): Promise<BenchDatabase> {
  if (kind === 'sqlite') return { name: 'sqlite', args: [], stop: async () => undefined };
  if (kind !== 'postgres') throw new Error(`BENCH_DATABASE must be sqlite or postgres, not '${kind}'`);
  const cluster = await launchPostgres({ durable: true });
  return { name: 'postgres', args: ['--database', await cluster.createDatabase('gdflow_bench')], stop: () => cluster.stop() };
}
