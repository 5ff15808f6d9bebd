import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Client } from '../../client/client.js';
import type { Decl } from '../../domain/wdl/ast.js';
import type { StructTable, WdlType } from '../../domain/wdl/types.js';
import { TransferProgress, uploadFile } from '../commands/data/transfer.js';
import { usageError } from '../exit.js';

/** A value the data store already names: `acct:/dir/x.fq` or `gdflow:dir/x.fq`. */
const DATA_PATH = /^(gdflow:|[A-Za-z0-9_-]+:\/)/;

/**
 * The inputs JSON of `gdflow wdl run` with its local File values uploaded to the data store: each path (relative to
 * the inputs file, as miniwdl reads them) goes to `<dir>/<n>/<basename>`, one `<n>` per local directory, so that the
 * files of one directory stay together there (a reference beside its index files, as the tasks expect them). Values
 * that are already data-store paths stay as they are; a Directory must be one.
 */
export class WdlInputUploads {
  private readonly dirs = new Map<string, string>();
  private readonly files = new Map<string, string>();

  constructor(
    /** The run's own directory in the data store, `/wdl/inputs/<id>`. */
    private readonly dir: string,
    /** Where relative paths are: the inputs file's directory. */
    private readonly base: string,
    private readonly structs: StructTable,
  ) {}

  /** The inputs with every local File replaced by its data-store path (`/wdl/inputs/<id>/<n>/<name>`). */
  rewrite(inputs: Record<string, unknown>, declarations: ReadonlyMap<string, Decl>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(inputs).map(([key, value]) => [key, this.visit(value, declarations.get(key)?.type, key)]));
  }

  /** Sends the files `rewrite` named; how many and their bytes. */
  async upload(client: Client, progress: boolean): Promise<{ files: number; bytes: number }> {
    const sizes = new Map<string, number>();
    for (const local of this.files.keys()) sizes.set(local, (await stat(local)).size);
    const bytes = [...sizes.values()].reduce((a, b) => a + b, 0);
    const bar = new TransferProgress(bytes, sizes.size, 'uploading inputs', progress);
    try {
      for (const [local, name] of this.files) await uploadFile(client, local, name, sizes.get(local)!, bar);
    } finally {
      bar.stop();
    }
    return { files: sizes.size, bytes };
  }

  private visit(value: unknown, type: WdlType | undefined, where: string): unknown {
    if (value === null || value === undefined || type === undefined) return value;
    switch (type.kind) {
      case 'File':
        return typeof value === 'string' && !DATA_PATH.test(value) ? this.file(value, where) : value;
      case 'Directory':
        if (typeof value === 'string' && !DATA_PATH.test(value))
          throw usageError(`inputs ${where}: a Directory must be a data-store path ('/dir' or '<account>:/dir'); upload it with gdflow data put`);
        return value;
      case 'Array':
        return Array.isArray(value) ? value.map((item, i) => this.visit(item, type.item, `${where}[${i}]`)) : value;
      case 'Pair':
        return this.members(
          value,
          new Map([
            ['left', type.left],
            ['right', type.right],
          ]),
          where,
        );
      case 'Map':
        // A key is a value too: a Map[File, Int]'s keys are local files as its values would be.
        if (typeof value !== 'object' || Array.isArray(value)) return value;
        return Object.fromEntries(
          Object.entries(value).map(([key, item]) => [this.visit(key, type.key, `${where} (key ${key})`), this.visit(item, type.value, `${where}.${key}`)]),
        );
      case 'Struct':
        return this.members(value, this.structs.get(type.name) ?? new Map<string, WdlType>(), where);
      default:
        return value;
    }
  }

  private members(value: unknown, types: ReadonlyMap<string, WdlType>, where: string): unknown {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, this.visit(member, types.get(key), `${where}.${key}`)]));
  }

  private file(path: string, where: string): string {
    const local = resolve(this.base, path);
    if (!statSync(local, { throwIfNoEntry: false })?.isFile()) throw usageError(`inputs ${where}: there is no file ${local}`);
    const known = this.files.get(local);
    if (known !== undefined) return known;
    let dir = this.dirs.get(dirname(local));
    if (dir === undefined) {
      dir = `${this.dir}/${this.dirs.size}`;
      this.dirs.set(dirname(local), dir);
    }
    const name = `${dir}/${basename(local)}`;
    this.files.set(local, name);
    return name;
  }
}
