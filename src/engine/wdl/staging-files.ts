import { readFileSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StagedItem } from '../../domain/tasks/job-spec.js';
import type { WdlFiles } from '../../domain/wdl/files.js';
import type { WdlValue } from '../../domain/wdl/values.js';
import type { StagedPaths } from './work-files.js';

/**
 * A task call's files while its command is prepared: its input Files and Directories staged read-only under the
 * staging root, and the files its expressions write (write_lines...) made there from their text. The paths are the
 * ones the command sees. Inputs from one host directory are staged into one directory (`<root>/<n>/<basename>`), as
 * Cromwell and miniwdl localize them: a reference given with its index files (`bwa mem ref.fa` reads `ref.fa.bwt`
 * beside it) finds them, and two inputs of the same name from different directories never meet.
 */
export class StagingFiles implements WdlFiles {
  readonly staged = new Map<string, { host: string } | { contents: string }>();
  readonly items: StagedItem[] = [];
  private readonly byHost = new Map<string, string>();
  /** A host directory -> the staged directory of its files. */
  private readonly dirs = new Map<string, string>();
  /** The next staged directory's number. */
  private next = 0;

  constructor(private readonly root: string) {}

  /** The value with its File and Directory host paths replaced by where the command finds them. */
  stage(value: WdlValue): WdlValue {
    switch (value.t) {
      case 'File':
      case 'Directory':
        return { t: value.t, v: this.stagePath(value.v, value.t) };
      case 'Array':
        return { t: 'Array', items: value.items.map((item) => this.stage(item)) };
      case 'Pair':
        return { t: 'Pair', left: this.stage(value.left), right: this.stage(value.right) };
      case 'Map':
        return { t: 'Map', entries: value.entries.map(([k, v]) => [k, this.stage(v)] as const) };
      case 'Object':
      case 'Struct':
        return { ...value, members: Object.fromEntries(Object.entries(value.members).map(([k, v]) => [k, this.stage(v)])) };
      default:
        return value;
    }
  }

  private stagePath(host: string, kind: 'File' | 'Directory'): string {
    // A relative path (a File declared from a string) is the task's own, in its working directory.
    if (!host.startsWith('/')) return host;
    const known = this.byHost.get(host);
    if (known) return known;
    let dir = this.dirs.get(dirname(host));
    if (dir === undefined) {
      dir = `${this.root}/${this.next++}`;
      this.dirs.set(dirname(host), dir);
    }
    const path = `${dir}/${basename(host)}`;
    this.items.push({ class: kind, path, location: pathToFileURL(host).href, writable: false });
    this.staged.set(path, { host });
    this.byHost.set(host, path);
    return path;
  }

  read(path: string): string {
    const staged = this.staged.get(path);
    if (!staged) throw new Error(`${path} cannot be read before the task runs`);
    return 'contents' in staged ? staged.contents : readFileSync(staged.host, 'utf8');
  }

  write(hint: string, text: string): string {
    const path = `${this.root}/${this.next++}/${hint}.txt`;
    this.items.push({ class: 'File', path, contents: text, writable: false });
    this.staged.set(path, { contents: text });
    return path;
  }

  glob(): string[] {
    throw new Error('glob() can only be used in a task output section');
  }

  size(path: string): number {
    const staged = this.staged.get(path);
    if (!staged) throw new Error(`${path} is not an input of this task`);
    return 'contents' in staged ? Buffer.byteLength(staged.contents) : statSync(staged.host).size;
  }

  get paths(): StagedPaths {
    return this.staged;
  }
}
