/**
 * Mount points a sandbox makes in the job's working directory for binds under /var/data (an input at
 * /var/data/inputs/x/reads.fq needs inputs/x/reads.fq to exist on the host to be mounted on): which ones a run
 * will make, and their removal afterwards, so that a run leaves the directory as it found it apart from what
 * the command wrote. The bwrap sandbox and the containers make them the same way (bwrap and the container runtimes
 * create a missing mount point as an empty file or directory).
 */
import { lstatSync, rmdirSync, unlinkSync } from 'node:fs';
import { posix } from 'node:path';

/** Components of workDir/rel that do not exist yet, shallowest first. */
export function missingComponents(workDir: string, rel: string): string[] {
  const out: string[] = [];
  let current = workDir;
  let missing = false;
  for (const part of rel.split('/')) {
    current = posix.join(current, part);
    if (!missing) {
      try {
        lstatSync(current);
        continue;
      } catch {
        missing = true;
      }
    }
    out.push(current);
  }
  return out;
}

/** Remove the mount points that are still empty (deepest first); what the command filled stays. */
export function removePlaceholders(paths: string[]): void {
  for (const p of [...paths].sort((a, b) => b.length - a.length)) {
    try {
      const st = lstatSync(p);
      if (st.isDirectory()) rmdirSync(p);
      else if (st.isFile() && st.size === 0) unlinkSync(p);
    } catch {
      // not empty, or already gone: leave it
    }
  }
}
