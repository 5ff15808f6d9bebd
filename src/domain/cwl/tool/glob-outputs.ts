import type { Json } from '../expressions/index.js';
import type { CommandOutputBinding, CwlVersion, LoadListing } from '../model.js';
import { ToolRunError } from './errors.js';
import { brief, type ToolExpressions } from './expressions.js';
import { LOAD_CONTENTS_LIMIT } from '../contents.js';
import { contentsText } from './input-files.js';
import { normalizeName } from './initial-workdir.js';
import type { OutputPaths, OutputRef } from './output-paths.js';
import { basenameOf, type FileObject } from './values.js';

/**
 * The Files and Directories an outputBinding's glob finds (what outputEval sees as `self`): every pattern
 * evaluated (a string or a list of strings), relative to the outdir (an absolute pattern only when it is in the
 * outdir: `$(runtime.outdir)/x`; `.` is the outdir itself), matches sorted as cwltool sorts them (by their
 * percent-encoded paths, code point by code point), each with location, path, basename, size and sha1 checksum,
 * its contents under loadContents and a Directory's listing under loadListing.
 */
/** What collecting outputs works with. */
export interface OutputContext {
  readonly paths: OutputPaths;
  readonly expressions: ToolExpressions;
  /** LoadListingRequirement's value in force. */
  readonly loadListing: LoadListing;
  readonly computeChecksum: boolean;
  readonly cwlVersion: CwlVersion;
}

export async function globOutputs(binding: CommandOutputBinding, context: OutputContext): Promise<{ files: FileObject[]; patterns: string[] }> {
  const { paths, expressions } = context;
  const patterns: string[] = [];
  for (const glob of binding.glob) {
    const value = await expressions.evaluate(glob);
    if (!value) continue;
    const list = Array.isArray(value) ? value : [value];
    if (!list.every((p): p is string => typeof p === 'string')) {
      throw new ToolRunError(`glob ${JSON.stringify(glob)} must give a pattern or a list of patterns, not ${brief(value)}`);
    }
    patterns.push(...list);
  }
  const files: FileObject[] = [];
  for (const pattern of patterns) {
    const relative = relativePattern(pattern, paths.outdir);
    const matches = relative === '.' ? ['.'] : [...(await paths.directory.glob(relative))];
    for (const match of matches.sort(byEncodedPath)) {
      const ref = paths.resolve(paths.sandboxPath(match)) ?? { kind: 'output', relative: match };
      const stat = await paths.stat(ref);
      if (stat === undefined) continue;
      const file = paths.objectFor(ref, stat.class, paths.sandboxPath(match));
      if (stat.class === 'Directory') {
        const listing = binding.loadListing ?? context.loadListing;
        if (listing !== 'no_listing') file.listing = await listDirectory(paths, ref, file.path as string, listing === 'deep_listing');
      } else {
        file.size = stat.size;
        if (binding.loadContents) file.contents = contentsText(await paths.readPrefix(ref, LOAD_CONTENTS_LIMIT + 1), file.path as string, context.cwlVersion);
        if (context.computeChecksum) file.checksum = `sha1$${await paths.sha1(ref)}`;
      }
      files.push(file);
    }
  }
  return { files, patterns };
}

function relativePattern(pattern: string, outdir: string): string {
  let relative = pattern;
  if (pattern === outdir || pattern === `${outdir}/`) relative = '.';
  else if (pattern.startsWith(`${outdir}/`)) relative = pattern.slice(outdir.length + 1);
  else if (pattern.startsWith('/')) throw new ToolRunError(`glob ${JSON.stringify(pattern)} is outside the output directory ${outdir}`);
  const normal = normalizeName(relative);
  if (normal === '..' || normal.startsWith('../')) throw new ToolRunError(`glob ${JSON.stringify(pattern)} leaves the output directory`);
  return normal;
}

/** A path percent-encoded as Python's urllib.parse.quote does (which also encodes `!'()*`, unlike encodeURIComponent). */
const encodedPath = (path: string): string =>
  path
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
const byEncodedPath = (a: string, b: string): number => {
  const [x, y] = [encodedPath(a), encodedPath(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

/** A Directory's listing as outputs see it: entries with location, path and basename (Files with size), subdirectories listed when deep. */
export async function listDirectory(paths: OutputPaths, ref: OutputRef, path: string, deep: boolean): Promise<Json[]> {
  const listing: Json[] = [];
  for (const entry of await paths.list(ref)) {
    const child = paths.child(ref, entry.basename);
    const object = paths.objectFor(child, entry.class, `${path}/${entry.basename}`);
    if (entry.class === 'File') object.size = entry.size;
    else if (deep) object.listing = await listDirectory(paths, child, `${path}/${entry.basename}`, true);
    listing.push(object);
  }
  return listing.sort((a, b) => byEncodedPath(basenameOf(a as FileObject), basenameOf(b as FileObject)));
}
