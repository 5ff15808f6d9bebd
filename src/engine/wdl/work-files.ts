import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { globSync } from 'glob';
import type { WdlFiles } from '../../domain/wdl/files.js';
import { rootHostPath } from '../deferred/run-roots.js';

/** Where the command's streams go in its working directory: hidden, so that a glob of `*` does not take them. */
export const STDOUT_NAME = '.wdl-stdout';
export const STDERR_NAME = '.wdl-stderr';

/** The bytes of a file or of every file under a directory. */
export function fileSize(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + fileSize(join(path, name)), 0);
}

/** Files staged for a run: the path the command sees -> the host path (or the literal's text, for written files). */
export type StagedPaths = ReadonlyMap<string, { readonly host: string } | { readonly contents: string }>;

/**
 * A task's finished working directory as its output expressions see it (domain/wdl/files.ts): paths relative to it, or
 * under the working directory as the command saw it (`/var/data`), in its disks at mount points, or of its staged inputs, are read on the host;
 * anything else is not this task's to read.
 */
export class WorkDirFiles implements WdlFiles {
  readonly stdout: string;
  readonly stderr: string;
  private written = 0;

  constructor(
    private readonly hostWorkDir: string,
    private readonly seenWorkDir: string,
    private readonly staged: StagedPaths,
    /** The run's disks at mount points (ResolvedRun.roots): a path in one is in its directory of the working directory. */
    private readonly roots: readonly string[] = [],
  ) {
    this.stdout = join(hostWorkDir, STDOUT_NAME);
    this.stderr = join(hostWorkDir, STDERR_NAME);
  }

  /** The host path of a path the command or an expression wrote; undefined when it is outside what the task may read. */
  hostPath(path: string): string | undefined {
    const staged = this.staged.get(path);
    if (staged) return 'host' in staged ? staged.host : undefined;
    let host: string;
    const under = (dir: string) => path === dir || path.startsWith(`${dir}/`);
    if (under(this.seenWorkDir)) host = join(this.hostWorkDir, path.slice(this.seenWorkDir.length));
    else if (this.roots.some(under)) host = rootHostPath(this.hostWorkDir, path);
    else host = resolve(this.hostWorkDir, path);
    const rel = relative(this.hostWorkDir, host);
    if (rel.startsWith('..') || rel.startsWith(sep)) return undefined;
    return host;
  }

  read(path: string): string {
    const staged = this.staged.get(path);
    if (staged && 'contents' in staged) return staged.contents;
    const host = this.hostPath(path);
    if (host === undefined) throw new Error(`${path} is not a file of this task`);
    return readFileSync(host, 'utf8');
  }

  write(hint: string, text: string): string {
    const dir = join(this.hostWorkDir, '.wdl-write');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${hint}_${++this.written}.txt`);
    writeFileSync(path, text);
    return path;
  }

  glob(pattern: string): string[] {
    if (pattern.startsWith('/') || pattern.split('/').includes('..')) throw new Error(`glob('${pattern}') must stay in the task's working directory`);
    return globSync(pattern, { cwd: this.hostWorkDir, nodir: true, dot: false, posix: true })
      .sort()
      .map((rel) => join(this.hostWorkDir, rel));
  }

  size(path: string): number {
    const host = this.hostPath(path);
    if (host === undefined) throw new Error(`${path} is not a file of this task`);
    return fileSize(host);
  }

  locate(path: string, kind: 'File' | 'Directory'): string | undefined {
    const host = this.hostPath(path);
    if (host === undefined || !existsSync(host)) return undefined;
    return statSync(host).isDirectory() === (kind === 'Directory') ? host : undefined;
  }
}
