import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The installed package's root (where package.json is), from src/ under tsx or dist/src/ when built. */
export function packageRoot(from: string = import.meta.dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** The version in the package's package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
