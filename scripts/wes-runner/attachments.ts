import { readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyDirectory } from '../../src/cli/cwl/input-uploads.js';
import { loadLocalRun, type JobOptions, type LocalRun } from '../../src/cli/cwl/local-run.js';
import { unsupportedFeature } from '../../src/cli/exit.js';
import { pathToReference } from '../../src/domain/cwl/uri.js';
import { documentUri, FileDocumentSource } from '../../src/engine/cwl/file-source.js';

/**
 * A cwl-runner's document and job as a WES 1.1 run request of attachments (docs/ga4gh.md, "The run request"): the
 * document and every file it reads (run:, $import, $include, SchemaDefRequirement imports, $schemas), the files its
 * defaults name, and the job's Files and Directories (with their secondary files), each attached under its path
 * relative to the directory that holds them all; the job as workflow_params, its locations relative references to
 * those attachments. The document and job are read and checked by `gdflow cwl run`'s own loader (loadLocalRun), which
 * also fills in the job's defaults and secondary files, so that what is sent is what `gdflow cwl run` would upload.
 */

type Json = Record<string, unknown>;

export interface WesRequest {
  /** Local file by its relative path (the attachment's filename). */
  readonly attachments: ReadonlyMap<string, string>;
  /** The attached main document's relative path, with its `#id` if one was given. */
  readonly workflowUrl: string;
  readonly params: Json;
  readonly cwlVersion: string;
  readonly warnings: readonly string[];
}

/** The loader's file source, noting every document it reads: those are the files the server must be given too. */
class RecordingSource extends FileDocumentSource {
  readonly paths = new Set<string>();
  override async read(uri: string): Promise<string> {
    const text = await super.read(uri);
    this.paths.add(fileURLToPath(uri));
    return text;
  }
}

const isFileObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && ((value as Json).class === 'File' || (value as Json).class === 'Directory');

const localPathOf = (value: Json): string | undefined =>
  typeof value.location === 'string' && value.location.startsWith('file:') ? fileURLToPath(value.location) : undefined;

/** The run request of `DOC.cwl[#id]` and its job (`JobOptions`: --basedir, as `gdflow cwl run` takes it). */
export async function wesRequestOf(document: string, job: string | undefined, options: JobOptions): Promise<WesRequest> {
  const source = new RecordingSource();
  const local: LocalRun = await loadLocalRun(document, job, { ...options, source });
  const files = new Set(source.paths);
  const directories: string[] = [];
  const note = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(note);
    else if (typeof value === 'object' && value !== null) {
      const path = isFileObject(value) ? localPathOf(value) : undefined;
      if (path !== undefined && (value as Json).class === 'Directory') directories.push(path);
      else if (path !== undefined) files.add(path);
      Object.values(value).forEach(note);
    }
  };
  note([local.inputs, local.requirements, local.packed.document]);
  for (const uri of local.process.schemas) if (uri.startsWith('file:')) files.add(fileURLToPath(uri));
  for (const directory of directories) for (const file of await filesBelow(directory)) files.add(file);
  const main = fileURLToPath(documentUri(document, options.cwd).split('#')[0]!);
  files.add(main);
  const root = commonDirectory([...files, ...directories]);
  const name = (path: string): string => relative(root, path).split(sep).join('/');
  const params = (await relativeLocations(local.inputs, name)) as Json;
  if (local.requirements !== undefined) params['cwl:requirements'] = await relativeLocations(local.requirements, name);
  const hash = document.indexOf('#');
  return {
    attachments: new Map([...files].map((path) => [name(path), path])),
    workflowUrl: `${name(main)}${hash < 0 ? '' : document.slice(hash)}`,
    params,
    cwlVersion: typeof local.packed.document.cwlVersion === 'string' ? local.packed.document.cwlVersion : '',
    warnings: local.warnings,
  };
}

/**
 * The job with each local File and Directory made a relative reference to its attachment (`./` first, so that a name
 * with a colon is not read as a scheme); a Directory holding no file goes as the literal it amounts to (nothing of it
 * could be attached). Other locations (http:, s3:) are a feature gdflow does not take: exit 33, as `gdflow cwl run`.
 */
async function relativeLocations(value: unknown, name: (path: string) => string): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((item) => relativeLocations(item, name)));
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) out[key] = await relativeLocations(child, name);
  if (!isFileObject(value) || typeof value.location !== 'string') return out;
  const path = localPathOf(value);
  if (path === undefined) {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value.location)?.[1];
    if (scheme !== undefined && scheme !== 'gdflow')
      throw unsupportedFeature([`${scheme} locations`], `${value.location}: gdflow's WES takes attached files and gdflow: data items`);
    return out;
  }
  if (value.class === 'Directory' && (await filesBelow(path)).length === 0) return emptyDirectory(value, path);
  const { path: _path, dirname: _dirname, listing: _listing, ...rest } = out;
  return { ...rest, location: `./${pathToReference(name(path))}` };
}

/** Every file below a directory (links to files followed, links to directories not: a link back up would never end). */
async function filesBelow(directory: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) out.push(...(await filesBelow(path)));
    else if (entry.isFile() || (entry.isSymbolicLink() && (await stat(path).catch(() => undefined))?.isFile())) out.push(path);
  }
  return out;
}

/** The deepest directory holding every path (a directory path holds itself). */
function commonDirectory(paths: readonly string[]): string {
  let root = dirname(paths[0]!);
  for (const path of paths) while (path !== root && !path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) root = dirname(root);
  return root;
}
