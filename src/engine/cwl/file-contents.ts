import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileContentReader } from '../../domain/cwl/contents.js';

/**
 * `loadContents` over local files: the first bytes of a `file:` location. With `root` (the data root), a location
 * outside it (through `..` or a symbolic link) is refused, so that a document cannot read what the run was not
 * given.
 */
export class LocalFileContents implements FileContentReader {
  private readonly root: string | undefined;

  constructor(options: { root?: string } = {}) {
    this.root = options.root === undefined ? undefined : resolve(options.root);
  }

  async head(location: string, bytes: number): Promise<{ text: string; whole: boolean }> {
    if (!location.startsWith('file:')) throw new Error(`loadContents reads local files only, not ${location}`);
    const path = fileURLToPath(location);
    if (this.root !== undefined) {
      const inside = relative(await realpath(this.root), await realpath(path).catch(() => path));
      if (inside.startsWith('..') || isAbsolute(inside)) throw new Error(`loadContents: ${path} is outside ${this.root}`);
    }
    const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === 'ENOENT' ? `loadContents: no such file: ${path}` : `loadContents: ${error.message}`);
    });
    try {
      // One byte more than asked says whether the file goes on.
      const buffer = Buffer.alloc(bytes + 1);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      return { text: buffer.subarray(0, Math.min(length, bytes)).toString('utf8'), whole: length <= bytes };
    } finally {
      await handle.close();
    }
  }
}
