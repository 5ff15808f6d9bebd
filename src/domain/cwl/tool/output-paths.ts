import { nameParts } from '../types/files.js';
import { pathToReference } from '../uri.js';
import type { EntryStat, FileAccess, ListedEntry, OutputDirectory } from './file-access.js';
import { normalizeName } from './initial-workdir.js';
import type { StagedItem } from './tool-run.js';
import { lastSegment, type FileObject } from './values.js';

/** Where a path of the sandbox is on the host: in the output directory, or an input staged read-only (a pass-through). */
export type OutputRef = { readonly kind: 'output'; readonly relative: string } | { readonly kind: 'input'; readonly location: string };

/**
 * Turns the paths a finished command and its output expressions speak of (sandbox paths such as `/var/data/out.txt`
 * or `/var/lib/cwl/inputs/1/reads.fq`) into what they are on the host, and reads them through the output directory
 * or the input FileAccess. Inputs staged read-only come first, as in cwltool: a File an expression passes through
 * keeps its input's location, even when InitialWorkDir put it in the outdir.
 */
export class OutputPaths {
  private readonly passThrough: readonly StagedItem[];

  constructor(
    readonly outdir: string,
    readonly directory: OutputDirectory,
    readonly files: FileAccess,
    staged: readonly StagedItem[],
  ) {
    this.passThrough = staged.filter((item) => item.location !== undefined && !item.writable).sort((a, b) => b.path.length - a.path.length);
  }

  /** A sandbox path (absolute, or relative to the outdir); undefined when it is neither in the outdir nor a staged input. */
  resolve(path: string): OutputRef | undefined {
    const normal = normalizeName(path.startsWith('/') ? path : `${this.outdir}/${path}`);
    for (const item of this.passThrough) {
      if (normal === item.path) return { kind: 'input', location: item.location! };
      if (item.class === 'Directory' && normal.startsWith(`${item.path}/`)) {
        return { kind: 'input', location: `${item.location!.replace(/\/+$/, '')}/${pathToReference(normal.slice(item.path.length + 1))}` };
      }
    }
    if (normal === this.outdir) return { kind: 'output', relative: '.' };
    if (normal.startsWith(`${this.outdir}/`)) return { kind: 'output', relative: normal.slice(this.outdir.length + 1) };
    return undefined;
  }

  /** A location: one in the output directory (relative, or the directory's URI and more), a file: URI read as a sandbox path, else an input's. */
  resolveLocation(location: string): OutputRef | undefined {
    const base = this.directory.location;
    if (location === base) return { kind: 'output', relative: '.' };
    if (location.startsWith(`${base}/`)) return { kind: 'output', relative: decodeURIComponent(location.slice(base.length + 1)) };
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(location)) return this.resolve(decodeURIComponent(location));
    if (location.startsWith('file://')) return this.resolve(decodeURIComponent(new URL(location).pathname));
    return { kind: 'input', location };
  }

  locationOf(ref: OutputRef): string {
    if (ref.kind === 'input') return ref.location;
    return ref.relative === '.' ? this.directory.location : `${this.directory.location}/${pathToReference(ref.relative)}`;
  }

  /** The sandbox path of something in the outdir (inputs keep the staged path they were given). */
  sandboxPath(relative: string): string {
    return relative === '.' ? this.outdir : `${this.outdir}/${relative}`;
  }

  stat(ref: OutputRef): Promise<EntryStat | undefined> {
    return ref.kind === 'output' ? this.directory.stat(ref.relative) : this.files.stat(ref.location);
  }

  readPrefix(ref: OutputRef, bytes: number): Promise<Uint8Array> {
    return ref.kind === 'output' ? this.directory.readPrefix(ref.relative, bytes) : this.files.readPrefix(ref.location, bytes);
  }

  sha1(ref: OutputRef): Promise<string> {
    return ref.kind === 'output' ? this.directory.sha1(ref.relative) : this.files.sha1(ref.location);
  }

  list(ref: OutputRef): Promise<readonly ListedEntry[]> {
    return ref.kind === 'output' ? this.directory.list(ref.relative) : this.files.list(ref.location);
  }

  /** A child of a directory ref. */
  child(ref: OutputRef, name: string): OutputRef {
    if (ref.kind === 'input') return { kind: 'input', location: `${ref.location.replace(/\/+$/, '')}/${pathToReference(name)}` };
    return { kind: 'output', relative: ref.relative === '.' ? name : `${ref.relative}/${name}` };
  }

  /** A File or Directory object for a ref, as output expressions see it: location, path, basename (and nameroot, nameext). */
  objectFor(ref: OutputRef, cls: 'File' | 'Directory', path: string): FileObject {
    const basename = lastSegment(path === this.outdir ? this.outdir : path) || lastSegment(this.directory.location);
    const object: FileObject = { class: cls, location: this.locationOf(ref), path, basename };
    if (cls === 'File') Object.assign(object, nameParts(basename));
    return object;
  }
}
