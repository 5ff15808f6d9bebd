import { statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The first file named `name` in the server's PATH, as a shell would find it. Synchronous: an executor looks once,
 * when it is made.
 */
export function findInPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
