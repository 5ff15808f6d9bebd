import type { Json } from '../expressions/index.js';
import { nameParts } from '../types/files.js';
import { basenameOfUri } from '../uri.js';
import { ToolRunError } from './errors.js';
import { brief } from './expressions.js';
import type { OutputPaths, OutputRef } from './output-paths.js';
import { asList, isFileObject, type FileObject } from './values.js';

/**
 * The Files and Directories of a collected output value made into what the run hands on: each one found where it
 * says it is (its `path` in the sandbox, else its `location`: relative to the outdir, or a file: URI read as a
 * sandbox path) and refused when that is neither in the output directory nor an input passed through, or when
 * nothing of its class is there; then given its host `location`, `basename` (nameroot, nameext), `size` and sha1
 * `checksum`, without `path` and `dirname` (sandbox paths mean nothing to the next job). A Directory that exists
 * loses its `listing`, as in cwltool: listings are loaded where a process asks for them, and a runner lists its
 * final outputs itself.
 */
export async function finishOutputObjects(value: Json | undefined, paths: OutputPaths, computeChecksum: boolean, where: string): Promise<void> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) await finishOutputObjects(item, paths, computeChecksum, `${where}[${i}]`);
  } else if (isFileObject(value)) {
    await finishObject(value, paths, computeChecksum, where);
    for (const [i, secondary] of asList(value.secondaryFiles).entries()) {
      await finishOutputObjects(secondary, paths, computeChecksum, `${where}.secondaryFiles[${i}]`);
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) await finishOutputObjects(item, paths, computeChecksum, `${where}.${key}`);
  }
}

async function finishObject(object: FileObject, paths: OutputPaths, computeChecksum: boolean, where: string): Promise<void> {
  const ref = refOf(object, paths, where);
  const stat = await paths.stat(ref);
  const location = paths.locationOf(ref);
  if (stat?.class !== object.class) {
    throw new ToolRunError(`${where}: ${location} ${stat === undefined ? 'does not exist' : `is a ${stat.class}, not a ${object.class}`}`);
  }
  object.location = location;
  delete object.path;
  delete object.dirname;
  if (typeof object.basename !== 'string') object.basename = basenameOfUri(location);
  if (stat.class === 'Directory') {
    delete object.listing;
    return;
  }
  Object.assign(object, nameParts(object.basename));
  object.size = stat.size;
  if (computeChecksum && typeof object.checksum !== 'string') object.checksum = `sha1$${await paths.sha1(ref)}`;
}

function refOf(object: FileObject, paths: OutputPaths, where: string): OutputRef {
  if (typeof object.path === 'string') {
    const ref = paths.resolve(object.path);
    if (ref === undefined) throw new ToolRunError(`${where}: ${object.path} is neither in the output directory nor an input passed through`);
    return ref;
  }
  if (typeof object.location === 'string') {
    const ref = paths.resolveLocation(object.location);
    if (ref === undefined) throw new ToolRunError(`${where}: ${object.location} is neither in the output directory nor an input passed through`);
    return ref;
  }
  throw new ToolRunError(`${where}: an output ${object.class} needs a location or a path: ${brief(object)}`);
}
