import { mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { Client } from '../../client/client.js';
import { GdApiError } from '../../client/errors.js';
import { CliError, EXIT } from '../exit.js';
import { downloadFile, TransferProgress } from '../commands/data/transfer.js';

/** Downloads at once: each is a request and, in a scatter's outputs, a small file. */
const DOWNLOADS_AT_ONCE = 8;

/** A Directory output holds at most this many files to be downloaded (as `gdflow data get` of a folder). */
const DIRECTORY_LIMIT = 100_000;

/**
 * A WDL run's outputs made local, as miniwdl prints them: every File and Directory the run stored under its output_dir
 * in the data store (`<account>:<output_dir>/name`, the server's names: a second one of a name is `name_2`) downloaded
 * into the output directory under that name, a Directory with its tree, and the value replaced by the local path. The
 * run's output_dir is its own (a new directory for each run), so only the run's Files and Directories can name it.
 * Other values stay as the server gave them.
 */
export async function localizeWdlOutputs(
  client: Client,
  outputs: Record<string, unknown>,
  stored: string,
  outdir: string,
  progress: boolean,
): Promise<unknown> {
  const prefix = `${await client.accountName()}:${stored.replace(/\/?$/, '/')}`;
  const bar = new TransferProgress(0, 0, 'downloading outputs', progress);
  await mkdir(outdir, { recursive: true });
  // The walk names every local path first (the server's names are unique under the run's output_dir); the downloads
  // then overlap, DOWNLOADS_AT_ONCE at a time, as `gdflow cwl run`'s do (bench:wdl: 1,000 one after another took seconds).
  // A name the outputs give twice (one File in two outputs) is downloaded once.
  const targets = new Map<string, string>();
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string' && value.startsWith(prefix)) {
      const target = join(outdir, value.slice(prefix.length));
      targets.set(value, target);
      return target;
    }
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, visit(member)]));
  };
  const local = visit(outputs);
  const downloads = [...targets];
  let next = 0;
  const worker = async () => {
    while (next < downloads.length) {
      const [name, target] = downloads[next++]!;
      await download(client, name, target, bar);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(DOWNLOADS_AT_ONCE, downloads.length) }, worker));
    return local;
  } finally {
    bar.stop();
  }
}

/**
 * One output downloaded to `target`: the data item of that name (a File), or else every item below it (a Directory).
 * The outputs do not say which a name is; a File is asked for first as the common case, at no cost of its own.
 */
async function download(client: Client, name: string, target: string, bar: TransferProgress): Promise<void> {
  const response = await client.getData(name).catch((error: unknown) => {
    if (error instanceof GdApiError && error.status === 404) return undefined;
    throw error;
  });
  if (response) {
    await downloadFile(client, name, target, bar, response);
    return;
  }
  // The server stores each File of the outputs as an item and each Directory as the items of its files, so a name the
  // outputs give that is no item is a Directory: with no item below it, an empty one.
  const below = `${name}/`;
  const list = await client.listData(below, { limit: DIRECTORY_LIMIT });
  if (list.count >= DIRECTORY_LIMIT)
    throw new CliError(`output directory ${name} holds more than ${DIRECTORY_LIMIT} files: get it with gdflow data get`, EXIT.failed);
  await mkdir(target, { recursive: true });
  for (const item of list.items) {
    const local = join(target, item.name.slice(below.length));
    // Data names have no '..' segments (data/names.ts); this holds even against a server that let one through.
    if (relative(target, local).startsWith('..')) throw new CliError(`data item ${item.name} would land outside ${target}`, EXIT.failed);
    await mkdir(dirname(local), { recursive: true });
    await downloadFile(client, item.name, local, bar);
  }
}
