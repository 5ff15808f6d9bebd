import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root (where package.json is), whether tests run from dist/ or through tsx. */
export function repoRoot(from: string = import.meta.dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const fixturePath = (name: string): string => join(repoRoot(), 'test', 'fixtures', name);
