import { readFile, realpath } from 'node:fs/promises';
import { relative, resolve, isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DocumentSource } from '../../domain/cwl/document/source.js';

/**
 * CWL documents read from the local filesystem, for the CLI (`gdflow cwl run|import DOC.cwl`).
 * Only `file:` URIs: the network is not a place gdflow fetches documents from. With `root`, a read
 * that leaves that directory (through `..` or a symbolic link) is refused, for callers that load
 * documents on someone else's behalf.
 */
export class FileDocumentSource implements DocumentSource {
  private readonly root: string | undefined;

  constructor(options: { root?: string } = {}) {
    this.root = options.root === undefined ? undefined : resolve(options.root);
  }

  async read(uri: string): Promise<string> {
    if (!uri.startsWith('file:')) throw new Error(`only local files can be read, not ${uri.split(':')[0]}: URIs`);
    const path = fileURLToPath(uri);
    if (this.root !== undefined) {
      const real = await realpath(path).catch(() => path);
      const inside = relative(await realpath(this.root).catch(() => this.root!), real);
      if (inside.startsWith('..') || isAbsolute(inside)) throw new Error(`${path} is outside ${this.root}`);
    }
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(code === 'ENOENT' ? `no such file: ${path}` : code === 'EISDIR' ? `${path} is a directory` : (error as Error).message, { cause: error });
    }
  }
}

/**
 * The URI of a document or job named on a command line (`tests/wf.cwl#main`, `/data/job.yml`, or a
 * `file:` URI): a path is resolved against `cwd` and a `#fragment` kept, as cwltool reads its
 * arguments. A name with a colon that is not a URI scheme (`colon:test.cwl`) is a path.
 */
export function documentUri(argument: string, cwd: string = process.cwd()): string {
  if (/^file:/i.test(argument)) return argument;
  const hash = argument.indexOf('#');
  const path = hash < 0 ? argument : argument.slice(0, hash);
  const fragment = hash < 0 ? '' : argument.slice(hash);
  return pathToFileURL(resolve(cwd, path)).href + fragment;
}
