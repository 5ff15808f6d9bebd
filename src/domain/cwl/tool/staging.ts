import type { JsonMap } from '../expressions/index.js';
import { nameParts } from '../types/files.js';
import { pathToReference } from '../uri.js';
import { ToolRunError } from './errors.js';
import type { StagedItem } from './tool-run.js';
import { asList, basenameOf, fileObjects, isFileObject, lastSegment, parentOf, type FileObject } from './values.js';

/**
 * Where every File and Directory of a run is in the sandbox. Inputs are staged read-only outside the outdir, each
 * top-level File or Directory in a directory of its own (`<root>/1/reads.fq`, `<root>/2/ref.fa`), so that names never
 * clash and a glob of the outdir never picks them up; a File's secondaryFiles go beside it; a Directory brings its
 * listing. InitialWorkDirRequirement then moves some of them into the outdir (`relocate`). The same location is
 * staged once, wherever it appears, and every object with that location gets the same `path` (and `dirname`,
 * `basename` from it), as cwltool's path mapper does.
 */
export class Staging {
  private readonly paths = new Map<string, string>();
  private inputs: StagedItem[] = [];
  private readonly workDir: StagedItem[] = [];
  private directories = 0;
  private literals = 0;

  constructor(private readonly root: string) {}

  /** Stages the Files and Directories of an input object, input by input in `order` (its values are given their paths). */
  stageInputs(values: JsonMap, order: readonly string[]): void {
    for (const file of order.flatMap((name) => fileObjects(values[name], false))) {
      const known = typeof file.location === 'string' && this.paths.has(file.location);
      this.place(file, known ? '' : `${this.root}/${++this.directories}`, false, this.inputs, false);
    }
  }

  /**
   * Puts a File or Directory at `path` instead (an InitialWorkDir entry): its location, secondary files and listing
   * are staged there from now on, and a literal one is made there.
   */
  relocate(file: FileObject, path: string, writable: boolean): void {
    const moved = new Set(fileObjects(file, true).flatMap((f) => (typeof f.location === 'string' ? [f.location] : [])));
    this.inputs = this.inputs.filter((item) => item.location === undefined || !moved.has(item.location));
    for (const location of moved) this.paths.delete(location);
    this.placeAt(file, path, false, this.workDir, writable);
  }

  /** Gives every File and Directory of `values` (secondary files and listings too) the path of its location. */
  applyPaths(values: JsonMap): void {
    for (const file of fileObjects(values, true)) {
      const path = typeof file.location === 'string' ? this.paths.get(file.location) : undefined;
      if (path !== undefined) setPath(file, path);
    }
  }

  get stagedInputs(): readonly StagedItem[] {
    return this.inputs;
  }

  get workDirItems(): readonly StagedItem[] {
    return this.workDir;
  }

  private place(file: FileObject, directory: string, covered: boolean, items: StagedItem[], writable: boolean): void {
    const known = typeof file.location === 'string' ? this.paths.get(file.location) : undefined;
    // A literal File without a name (a job's `{class: File, contents: ...}`) gets one; cwltool gives it a random one.
    if (file.location === undefined && file.basename === undefined) file.basename = `literal-${++this.literals}`;
    const name = file.basename;
    if (known === undefined && (typeof name !== 'string' || name === '' || name === '.' || name === '..' || name.includes('/'))) {
      throw new ToolRunError(`a ${file.class} cannot be staged under the name ${JSON.stringify(name)}`);
    }
    this.placeAt(file, known ?? `${directory}/${basenameOf(file)}`, covered || known !== undefined, items, writable, known !== undefined);
  }

  private placeAt(file: FileObject, path: string, covered: boolean, items: StagedItem[], writable: boolean, known = false): void {
    const location = typeof file.location === 'string' && !file.location.startsWith('_:') ? file.location : undefined;
    if (location !== undefined && !known) this.paths.set(location, path);
    if (!covered) items.push(stagedItem(file, path, location, writable));
    setPath(file, path);
    for (const secondary of asList(file.secondaryFiles)) if (isFileObject(secondary)) this.place(secondary, parentOf(path), false, items, writable);
    for (const entry of asList(file.listing)) if (isFileObject(entry)) this.place(entry, path, known || isChildOf(file, entry), items, writable);
  }
}

function stagedItem(file: FileObject, path: string, location: string | undefined, writable: boolean): StagedItem {
  const cls = file.class;
  if (location !== undefined) return { class: cls, path, location, writable };
  return typeof file.contents === 'string' && cls === 'File' ? { class: cls, path, contents: file.contents, writable } : { class: cls, path, writable };
}

/** Whether a listing entry is in its Directory where the Directory's location is (then staging the Directory brings it). */
function isChildOf(directory: FileObject, entry: FileObject): boolean {
  if (typeof directory.location !== 'string' || typeof entry.location !== 'string' || directory.location.startsWith('_:')) return false;
  return entry.location === `${directory.location.replace(/\/+$/, '')}/${pathToReference(basenameOf(entry))}`;
}

/** A File's or Directory's `path`, `dirname` and `basename` (with nameroot and nameext) for where it is staged. */
export function setPath(file: FileObject, path: string): void {
  file.path = path;
  file.dirname = parentOf(path);
  file.basename = lastSegment(path);
  if (file.class === 'File') Object.assign(file, nameParts(file.basename));
}
