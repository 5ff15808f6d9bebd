/**
 * The file-system steps the data store is built of: flags that never follow a symbolic link, the temporary name an item
 * is written under, fsync of a directory after a rename, and the check that an imported host file is inside its base.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { DataNotFoundError } from './data-errors.js';
import { DataPathError, TEMP_PREFIX } from './names.js';

export const isMissing = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

export const O_READ = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;
export const O_CREATE_TEMP = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW;

export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await fh.write(buf, offset, buf.length - offset);
    offset += bytesWritten;
  }
}

export const tempName = (): string => `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`;

/** Refuses a host file that is not inside `base` or reached through a symlink below `base`. */
export async function checkInside(base: string, file: string, name: string): Promise<void> {
  const rel = relative(base, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new DataPathError(`import into ${JSON.stringify(name)}: "${file}" is not inside "${base}"`);
  }
  let current = base;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    let st: Stats;
    try {
      st = await lstat(current);
    } catch (err) {
      if (isMissing(err)) throw new DataNotFoundError(`import into ${JSON.stringify(name)}: "${file}" does not exist`);
      throw err;
    }
    if (st.isSymbolicLink()) {
      throw new DataPathError(`import into ${JSON.stringify(name)}: "${current}" is a symbolic link`);
    }
  }
}
