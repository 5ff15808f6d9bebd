import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';

/**
 * Every store backend the contract suite runs against. A backend that cannot run here is listed
 * with the reason it is skipped, so a skipped case is never silent.
 */
export interface Backend {
  name: string;
  skip?: string;
  open(): Promise<{ store: Store; cleanup(): Promise<void> }>;
}

export const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'gdflow-store-'));
      const store = await openSqliteStore(join(dir, 'gdflow.db'));
      return {
        store,
        async cleanup() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    skip: 'the PostgreSQL store is not implemented yet (roadmap: PostgreSQL + Slurm scale-out)',
    async open() {
      throw new Error('not available');
    },
  },
];
