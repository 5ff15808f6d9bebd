import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { NO_FILES, type WdlFiles } from '../../domain/wdl/files.js';
import { fileSize } from './work-files.js';

/**
 * The files a workflow's own expressions may read (read_*, size: `read_string(call.out)`, `read_json(input_file)`,
 * spec "Evaluation of Workflow Elements"): those of the run's own task directory (its calls' outputs) and of its
 * account's data store (its File inputs), by their real paths, so that a link a command made cannot lead elsewhere.
 * Writing and glob stay with tasks.
 */
export class WorkflowFiles implements WdlFiles {
  private readonly roots: readonly string[];

  constructor(roots: readonly string[]) {
    this.roots = roots.map((root) => {
      try {
        return realpathSync(root);
      } catch {
        return root;
      }
    });
  }

  private hostPath(path: string): string {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new Error(`cannot read ${path}: there is no such file`);
    }
    const inside = (root: string) => {
      const rel = relative(root, real);
      return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
    };
    if (!isAbsolute(path) || !this.roots.some(inside)) throw new Error(`cannot read ${path}: it is neither an input nor an output of this run`);
    return real;
  }

  read(path: string): string {
    return readFileSync(this.hostPath(path), 'utf8');
  }

  size(path: string): number {
    return fileSize(this.hostPath(path));
  }

  write(hint: string, text: string): string {
    return NO_FILES.write(hint, text);
  }

  glob(pattern: string): string[] {
    return NO_FILES.glob(pattern);
  }
}
