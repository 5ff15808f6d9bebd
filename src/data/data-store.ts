/**
 * Data items on the server's disk: `<account>:/<path>` lives at `<root>/<account>/<path>`.
 *
 * Containment: names are validated (names.ts) so they can only denote paths below `<root>/<account>/`; in
 * addition every operation refuses (DataPathError) when any existing component below the root – the account
 * directory, a directory of the path, or the item itself – is a symbolic link, and final components are
 * opened with O_NOFOLLOW. (The root itself may be a symlink: it is configuration.) Only the server writes
 * under the root and jobs never see it (the bwrap executor hides it), so these checks are defence in depth,
 * not a race-free guarantee against a concurrent attacker with write access to the store.
 *
 * Durability: `write` and `importFile` build the item under a temporary name (`.gdflow-tmp-<random>`, a prefix
 * item names may not use) in the target's directory, fsync it, rename it over the final name and fsync the
 * directory. A reader therefore sees either the old or the new content, never a partial item; after a crash
 * only a stale temporary file can remain (`removeStaleTemporaryFiles` deletes those; `list` never shows them).
 */
import { createHash } from 'node:crypto';
import { type Stats } from 'node:fs';
import { link, lstat, mkdir, open, readdir, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, resolve as resolvePath, sep } from 'node:path';
import { checkAccount, checkPath, checkRef, DataPathError, formatDataName, TEMP_PREFIX, type DataRef } from './names.js';
import { DataChecksumError, DataNotFoundError, DataTooLargeError } from './data-errors.js';
import { checkInside, fsyncDir, isMissing, O_CREATE_TEMP, O_READ, tempName, writeAll } from './data-files.js';

export interface DataItemInfo {
  size: number;
  /** Seconds since epoch, with fraction. */
  modifiedAt: number;
  /** The modification time as the file system gives it (ms): what a recorded stamp is compared with. */
  mtimeMs: number;
}

export interface WriteOptions {
  /** MD5 of the whole content, base64 (as in a Content-MD5 header); the write is refused when it differs. */
  expectedMd5Base64?: string;
  /** Refuse content longer than this many bytes. */
  maxBytes?: number;
}

export class DataStore {
  private rootReal: string | undefined;

  constructor(readonly root: string) {}

  /** The root's real path; undefined when it does not exist (and `create` is false). */
  private async realRoot(create: boolean): Promise<string | undefined> {
    if (this.rootReal) return this.rootReal;
    const abs = resolvePath(this.root);
    if (create) await mkdir(abs, { recursive: true });
    try {
      this.rootReal = await realpath(abs);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    return this.rootReal;
  }

  /**
   * Walks root/<account>/<segments...>, refusing symlinks among the existing components.
   * Returns the host path (existing or not).
   */
  private async walk(account: string, segments: string[], name: string): Promise<string> {
    const root = (await this.realRoot(false)) ?? resolvePath(this.root);
    const accountDir = join(root, account);
    let current = accountDir;
    const parts = [account, ...segments];
    let shown = '';
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      current = i === 0 ? accountDir : join(current, part);
      if (i > 0) shown += `/${part}`;
      let st: Stats;
      try {
        st = await lstat(current);
      } catch (err) {
        if (isMissing(err)) break; // nothing below exists
        throw err;
      }
      if (st.isSymbolicLink()) {
        const what = i === 0 ? `the account directory of ${account}` : `"${shown}"`;
        throw new DataPathError(`data name ${JSON.stringify(name)}: ${what} is a symbolic link in the store; refusing to follow it`);
      }
      if (!st.isDirectory() && i < parts.length - 1) break; // a file where a directory should be: nothing below
    }
    const full = join(accountDir, ...segments);
    if (full !== accountDir && !full.startsWith(accountDir + sep)) {
      throw new DataPathError(`data name ${JSON.stringify(name)}: resolves outside the account's directory`);
    }
    return full;
  }

  /** Host path for a ref, guaranteed inside root/<account>; throws DataPathError if any existing component is a symlink or resolves outside. */
  async resolve(ref: DataRef): Promise<string> {
    checkRef(ref);
    return this.walk(ref.account, ref.path.slice(1).split('/'), formatDataName(ref));
  }

  /** Size and modification time; undefined when missing (directories are not items). */
  async stat(ref: DataRef): Promise<DataItemInfo | undefined> {
    const path = await this.resolve(ref);
    try {
      const st = await lstat(path);
      if (!st.isFile()) return undefined;
      return { size: st.size, modifiedAt: st.mtimeMs / 1000, mtimeMs: st.mtimeMs };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  /** A stream of the item's content; rejects with DataNotFoundError when it does not exist. */
  async createReadStream(ref: DataRef): Promise<NodeJS.ReadableStream> {
    const path = await this.resolve(ref);
    const name = formatDataName(ref);
    let fh: FileHandle;
    try {
      fh = await open(path, O_READ);
    } catch (err) {
      if (isMissing(err)) throw new DataNotFoundError(`data item ${JSON.stringify(name)} does not exist`);
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
        throw new DataPathError(`data name ${JSON.stringify(name)}: the item is a symbolic link in the store; refusing to follow it`);
      }
      throw err;
    }
    const st = await fh.stat().catch(async (err: unknown) => {
      await fh.close();
      throw err;
    });
    if (!st.isFile()) {
      await fh.close();
      throw new DataNotFoundError(`data item ${JSON.stringify(name)} does not exist (it is a directory)`);
    }
    return fh.createReadStream();
  }

  /**
   * Creates root/<account>/<dirs of ref> as needed, refusing symlinks and non-directories on the way;
   * returns the directory that will hold the item.
   */
  private async ensureParent(ref: DataRef): Promise<string> {
    const name = formatDataName(ref);
    const root = await this.realRoot(true);
    if (!root) throw new Error(`data store root ${this.root} cannot be created`);
    const segments = ref.path.slice(1).split('/');
    const parts = [ref.account, ...segments.slice(0, -1)];
    let current = root;
    let shown = '';
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      const parent = current;
      current = join(current, part);
      if (i > 0) shown += `/${part}`;
      let created = false;
      try {
        await mkdir(current, 0o755);
        created = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const st = await lstat(current);
      if (st.isSymbolicLink()) {
        const what = i === 0 ? `the account directory of ${ref.account}` : `"${shown}"`;
        throw new DataPathError(`data name ${JSON.stringify(name)}: ${what} is a symbolic link in the store; refusing to follow it`);
      }
      if (!st.isDirectory()) {
        throw new DataPathError(`data name ${JSON.stringify(name)}: "${shown}" is a data item, not a directory`);
      }
      if (created) await fsyncDir(parent);
    }
    return current;
  }

  /** Refuses a final name that is a symlink or a directory. */
  private async checkTarget(target: string, name: string): Promise<void> {
    try {
      const st = await lstat(target);
      if (st.isSymbolicLink()) {
        throw new DataPathError(`data name ${JSON.stringify(name)}: the item is a symbolic link in the store; refusing to replace it`);
      }
      if (st.isDirectory()) throw new DataPathError(`data name ${JSON.stringify(name)}: a directory has this name`);
    } catch (err) {
      if (err instanceof DataPathError) throw err;
      if (!isMissing(err)) throw err;
    }
  }

  /** Moves a finished temporary file over the final name, durably. */
  private async commit(temp: string, target: string, dir: string, name: string): Promise<void> {
    await this.checkTarget(target, name);
    await rename(temp, target);
    await fsyncDir(dir);
  }

  /**
   * Write atomically: temp file in the same directory, fsync, rename over the target, fsync the directory.
   * Returns size and md5 (hex). Refuses (DataChecksumError) when `expectedMd5Base64` differs and
   * (DataTooLargeError) when the content exceeds `maxBytes`; a refused or failed write leaves the previous
   * item untouched and no temporary file.
   */
  async write(ref: DataRef, source: NodeJS.ReadableStream | Buffer, options: WriteOptions = {}): Promise<{ size: number; md5: string }> {
    checkRef(ref);
    const name = formatDataName(ref);
    let expected: Buffer | undefined;
    if (options.expectedMd5Base64 !== undefined) {
      expected = Buffer.from(options.expectedMd5Base64, 'base64');
      if (expected.length !== 16 || expected.toString('base64') !== options.expectedMd5Base64.trim()) {
        throw new DataChecksumError(`data item ${JSON.stringify(name)}: "${options.expectedMd5Base64}" is not a base64 MD5 digest`);
      }
    }
    const max = options.maxBytes;
    if (Buffer.isBuffer(source) && max !== undefined && source.length > max) {
      throw new DataTooLargeError(`data item ${JSON.stringify(name)}: ${source.length} bytes is over the ${max}-byte limit`);
    }
    await this.resolve(ref); // refuse symlinks before creating anything
    const dir = await this.ensureParent(ref);
    const target = join(dir, ref.path.slice(ref.path.lastIndexOf('/') + 1));
    await this.checkTarget(target, name);

    const temp = join(dir, tempName());
    const fh = await open(temp, O_CREATE_TEMP, 0o644);
    let closed = false;
    try {
      const hash = createHash('md5');
      let size = 0;
      if (Buffer.isBuffer(source)) {
        hash.update(source);
        size = source.length;
        await writeAll(fh, source);
      } else {
        for await (const chunk of source) {
          const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          size += buf.length;
          if (max !== undefined && size > max) {
            throw new DataTooLargeError(`data item ${JSON.stringify(name)}: the content is over the ${max}-byte limit`);
          }
          hash.update(buf);
          await writeAll(fh, buf);
        }
      }
      await fh.sync();
      await fh.close();
      closed = true;
      const digest = hash.digest();
      if (expected && !digest.equals(expected)) {
        throw new DataChecksumError(
          `data item ${JSON.stringify(name)}: content MD5 ${digest.toString('base64')} does not match the expected ${options.expectedMd5Base64}`,
        );
      }
      await this.commit(temp, target, dir, name);
      return { size, md5: digest.toString('hex') };
    } catch (err) {
      if (!closed) await fh.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Atomic copy of a host file (a job's output) into the store, same guarantees as `write`. The host file must
   * be a regular file, not a symlink; with `within` (e.g. the job's work directory) it must also lie inside that
   * directory with no symlink on the way. A file with a single link on the same file system is hard-linked to a
   * temporary name and renamed (its mode becomes 0644); otherwise it is copied. Returns the stored item's size and
   * modification time (its stamp, as data provenance records it).
   */
  async importFile(ref: DataRef, hostFile: string, options: { within?: string } = {}): Promise<{ size: number; mtimeMs: number }> {
    checkRef(ref);
    const name = formatDataName(ref);
    if (!isAbsolute(hostFile)) throw new DataPathError(`import into ${JSON.stringify(name)}: "${hostFile}" is not an absolute path`);
    if (options.within !== undefined) await checkInside(options.within, hostFile, name);
    let st: Stats;
    try {
      st = await lstat(hostFile);
    } catch (err) {
      if (isMissing(err)) throw new DataNotFoundError(`import into ${JSON.stringify(name)}: "${hostFile}" does not exist`);
      throw err;
    }
    if (st.isSymbolicLink()) throw new DataPathError(`import into ${JSON.stringify(name)}: "${hostFile}" is a symbolic link`);
    if (!st.isFile()) throw new DataPathError(`import into ${JSON.stringify(name)}: "${hostFile}" is not a regular file`);

    await this.resolve(ref);
    const dir = await this.ensureParent(ref);
    const target = join(dir, ref.path.slice(ref.path.lastIndexOf('/') + 1));
    await this.checkTarget(target, name);
    const temp = join(dir, tempName());

    if (st.nlink === 1) {
      let linked = false;
      try {
        await link(hostFile, temp);
        linked = true;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (!['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP', 'EACCES'].includes(code ?? '')) throw err;
      }
      if (linked) {
        try {
          const fh = await open(temp, O_READ);
          let stamp: { size: number; mtimeMs: number };
          try {
            const now = await fh.stat();
            if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev) {
              throw new DataPathError(`import into ${JSON.stringify(name)}: "${hostFile}" changed while it was imported`);
            }
            await fh.chmod(0o644);
            await fh.sync();
            stamp = { size: now.size, mtimeMs: now.mtimeMs };
          } finally {
            await fh.close();
          }
          await this.commit(temp, target, dir, name);
          return stamp;
        } catch (err) {
          await unlink(temp).catch(() => undefined);
          throw err;
        }
      }
    }

    // copy through a descriptor opened without following symlinks
    const src = await open(hostFile, O_READ);
    try {
      const srcStat = await src.stat();
      if (!srcStat.isFile()) throw new DataPathError(`import into ${JSON.stringify(name)}: "${hostFile}" is not a regular file`);
      const out = await open(temp, O_CREATE_TEMP, 0o644);
      let closed = false;
      try {
        const buf = Buffer.allocUnsafe(1024 * 1024);
        let size = 0;
        for (;;) {
          const { bytesRead } = await src.read(buf, 0, buf.length, null);
          if (bytesRead === 0) break;
          await writeAll(out, buf.subarray(0, bytesRead));
          size += bytesRead;
        }
        await out.sync();
        const { mtimeMs } = await out.stat();
        await out.close();
        closed = true;
        await this.commit(temp, target, dir, name);
        return { size, mtimeMs };
      } catch (err) {
        if (!closed) await out.close().catch(() => undefined);
        await unlink(temp).catch(() => undefined);
        throw err;
      }
    } finally {
      await src.close();
    }
  }

  /**
   * Items under a directory-ish prefix ('/', '/dir' or '/dir/'), recursively, sorted by name (code-unit order
   * of the full name), at most `limit`. Names are full data names ('<account>:/<path>'). Symlinks, temporary
   * files and entries whose names are not valid data names are skipped. A missing prefix gives [].
   */
  async list(account: string, prefix: string, options: { limit?: number } = {}): Promise<Array<{ name: string } & DataItemInfo>> {
    checkAccount(account, `${account}:${prefix}`);
    checkPath(prefix, `${account}:${prefix}`, { allowRoot: true, allowTrailingSlash: true });
    const limit = options.limit ?? Infinity;
    if (limit <= 0) return [];
    const dirPath = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix; // '' for the root
    const segments = dirPath === '' ? [] : dirPath.slice(1).split('/');
    if ((await this.realRoot(false)) === undefined) return [];
    const start = await this.walk(account, segments, `${account}:${prefix}`);
    try {
      const st = await lstat(start);
      if (!st.isDirectory()) return [];
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    const out: Array<{ name: string } & DataItemInfo> = [];
    const visit = async (dir: string, path: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      // Sorting directories as "name/" makes this depth-first walk produce full names in sorted order.
      const keyed = entries
        .filter((e) => !e.name.startsWith(TEMP_PREFIX) && (e.isFile() || e.isDirectory()))
        .map((e) => ({ e, key: e.isDirectory() ? `${e.name}/` : e.name }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const { e } of keyed) {
        if (out.length >= limit) return;
        const childPath = `${path}/${e.name}`;
        try {
          checkPath(childPath, `${account}:${childPath}`);
        } catch {
          continue; // not addressable by a data name
        }
        const host = join(dir, e.name);
        if (e.isDirectory()) {
          await visit(host, childPath);
        } else {
          try {
            const st = await lstat(host);
            if (st.isFile()) out.push({ name: `${account}:${childPath}`, size: st.size, modifiedAt: st.mtimeMs / 1000, mtimeMs: st.mtimeMs });
          } catch (err) {
            if (!isMissing(err)) throw err;
          }
        }
      }
    };
    await visit(start, dirPath);
    return out;
  }

  /** Deletes an item; false when there was none. Directories left empty are kept. */
  async delete(ref: DataRef): Promise<boolean> {
    const path = await this.resolve(ref);
    try {
      const st = await lstat(path);
      if (!st.isFile()) return false;
      await unlink(path);
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
    await fsyncDir(join(path, '..'));
    return true;
  }

  /** Deletes temporary files older than `maxAgeMs` that crashed writes left behind; returns how many. */
  async removeStaleTemporaryFiles(maxAgeMs = 24 * 3600 * 1000): Promise<number> {
    const root = await this.realRoot(false);
    if (!root) return 0;
    let removed = 0;
    const cutoff = Date.now() - maxAgeMs;
    const visit = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = join(dir, e.name);
        if (e.isDirectory()) await visit(p);
        else if (e.isFile() && e.name.startsWith(TEMP_PREFIX)) {
          try {
            if ((await lstat(p)).mtimeMs < cutoff) {
              await unlink(p);
              removed++;
            }
          } catch {
            // raced with a writer finishing
          }
        }
      }
    };
    await visit(root);
    return removed;
  }
}
