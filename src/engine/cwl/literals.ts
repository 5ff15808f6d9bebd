import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { linkOrCopyTree } from '../link-or-copy.js';
import { nameParts } from '../../domain/cwl/types/files.js';
import type { Json } from '../../store/store.js';
import { createHash } from 'node:crypto';

const lastSegment = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

type JsonMap = { [key: string]: unknown };
const isObject = (value: unknown): value is JsonMap => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The literal Files and Directories of a value (an ExpressionTool's outputs: `contents`, or a `listing`, without a
 * location) written into the job's working directory, each top-level one in a directory of its own, so that later jobs
 * find them where their location says. Located ones are left as they are.
 */
export async function writeLiterals(value: Json, workDir: string): Promise<Json> {
  let n = 0;
  const visit = async (item: unknown, dir: string | undefined): Promise<unknown> => {
    if (Array.isArray(item)) {
      const out: unknown[] = [];
      for (const element of item) out.push(await visit(element, dir));
      return out;
    }
    if (!isObject(item)) return item;
    const isFile = item.class === 'File' || item.class === 'Directory';
    if (isFile && dir !== undefined && typeof item.location === 'string') {
      // A located entry of a literal Directory: the Directory holds it (linked there), as staging expects of a listing.
      const basename = typeof item.basename === 'string' && item.basename !== '' ? item.basename : lastSegment(fileURLToPath(item.location));
      const path = join(dir, basename);
      await linkOrCopyTree(fileURLToPath(item.location), path);
      return { ...item, location: pathToFileURL(path).href, basename };
    }
    if (!isFile || typeof item.location === 'string') {
      const out: JsonMap = {};
      for (const [key, child] of Object.entries(item)) out[key] = await visit(child, dir);
      return out;
    }
    const parent = dir ?? join(workDir, `literal-${++n}`);
    await mkdir(parent, { recursive: true });
    const basename = typeof item.basename === 'string' && item.basename !== '' && !item.basename.includes('/') ? item.basename : `literal-${++n}`;
    const path = join(parent, basename);
    if (item.class === 'File') {
      const contents = typeof item.contents === 'string' ? item.contents : '';
      await writeFile(path, contents);
      const size = Buffer.byteLength(contents);
      const checksum = `sha1$${createHash('sha1').update(contents).digest('hex')}`;
      return { ...item, location: pathToFileURL(path).href, basename, ...nameParts(basename), size, checksum };
    }
    await mkdir(path, { recursive: true });
    const listing = Array.isArray(item.listing) ? await visit(item.listing, path) : [];
    return { ...item, location: pathToFileURL(path).href, basename, listing };
  };
  return (await visit(value, undefined)) as Json;
}
