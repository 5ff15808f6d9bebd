import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { WdlFiles } from '../../domain/wdl/files.js';

/** Where a run's workflow expressions write their files (write_lines...): in its task's directory, beside its jobs'. */
export const WRITTEN_DIR = '.wdl-written';

/**
 * The files a WDL workflow's own expressions see (domain/wdl/files.ts): `read_lines(f)`, `size(f)`, `write_json(x)` in
 * a declaration, a scatter's collection or the outputs. Their paths are the run's host paths: an input's in the
 * account's data store, a call output's in the task's directory. Only those two places can be read, whatever a path
 * or a link in it says, so that a document cannot read another task's or account's files; written files go into the
 * task's directory, named by their content (the same text, the same file: call-cache keys stay stable).
 */
export class WorkflowFiles implements WdlFiles {
  constructor(
    private readonly taskDir: string,
    private readonly allowed: readonly string[],
  ) {}

  /** The real host path of `path`, when it is inside one of the allowed places; else an error naming it. */
  private hostPath(path: string): string {
    if (!isAbsolute(path)) throw new Error(`${path} is not a file of this run (a workflow reads its inputs and its calls' outputs)`);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new Error(`${path} does not exist`);
    }
    const inside = this.allowed.some((root) => {
      let base: string;
      try {
        base = realpathSync(root);
      } catch {
        return false;
      }
      const rel = relative(base, real);
      return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
    });
    if (!inside) throw new Error(`${path} is not a file of this run (a workflow reads its inputs and its calls' outputs)`);
    return real;
  }

  read(path: string): string {
    return readFileSync(this.hostPath(path), 'utf8');
  }

  write(hint: string, text: string): string {
    const dir = join(this.taskDir, WRITTEN_DIR);
    mkdirSync(dir, { recursive: true });
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
    const path = join(dir, `${hint.replace(/[^A-Za-z0-9_.-]/g, '_')}_${digest}.txt`);
    // Written aside and renamed: another job writing the same text meanwhile never shows a half-written file.
    const aside = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(aside, text);
    renameSync(aside, path);
    return path;
  }

  glob(): string[] {
    throw new Error('glob() can only be used in a task output section');
  }

  size(path: string): number {
    const sizeOf = (host: string): number => {
      const stat = statSync(host);
      return stat.isDirectory() ? readdirSync(host).reduce((sum, name) => sum + sizeOf(join(host, name)), 0) : stat.size;
    };
    return sizeOf(this.hostPath(path));
  }
}
