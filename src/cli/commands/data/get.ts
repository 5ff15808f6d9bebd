import { mkdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import type { Client } from '../../../client/client.js';
import { GdApiError } from '../../../client/errors.js';
import { formatDataItemName, parseDataPrefix } from '../../../client/data-names.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { CliError, EXIT, usageError } from '../../exit.js';
import { interruptible } from '../../interrupt.js';
import { missingData } from '../../not-found.js';
import { formatBytes, note } from '../../output.js';
import { downloadFile, removePartialDownloads, TransferProgress } from './transfer.js';

/** A folder holds at most this many items to be downloaded in one go. */
const FOLDER_LIMIT = 100_000;

/** Run a download under its bar, Ctrl-C leaving no part-file behind. */
async function transfer(progress: TransferProgress, work: Promise<unknown>, interrupted: () => string): Promise<void> {
  try {
    await interruptible(work, interrupted, removePartialDownloads);
  } finally {
    progress.stop();
  }
}

/** Whether some item lies below `prefix` (a name that is no item may be a folder given without its '/'). */
const hasItemsBelow = (client: Client, prefix: string): Promise<boolean> =>
  client.listData(prefix, { limit: 1 }).then(
    (list) => list.count > 0,
    () => false,
  );

/** Every item below the folder `prefix` (ending in '/') into `dir`, at its path below the folder. */
async function getFolder(client: Client, prefix: string, dir: string | undefined): Promise<void> {
  if (dir === '-') throw usageError(`${prefix} is a folder: give a directory to download it into, not '-'`);
  const ref = parseDataPrefix(prefix, await client.accountName());
  const list = await client.listData(prefix, { limit: FOLDER_LIMIT });
  if (list.count === 0) throw new CliError(`no data items below ${prefix}`, EXIT.failed);
  if (list.count >= FOLDER_LIMIT) throw new CliError(`more than ${FOLDER_LIMIT} items below ${prefix}: get a narrower folder`, EXIT.failed);
  const base = formatDataItemName(ref).replace(/\/?$/, '/');
  const target = dir ?? (basename(ref.path) || ref.account);
  const root = resolve(target);
  const plan = list.items.map((item) => {
    const local = join(root, item.name.slice(base.length));
    // Data names have no '..' segments (data/names.ts); this holds even against a server that let one through.
    if (relative(root, local).startsWith('..')) throw new CliError(`data item ${item.name} would land outside ${target}`, EXIT.failed);
    return { name: item.name, local };
  });
  const total = list.items.reduce((sum, item) => sum + item.size, 0);
  const progress = new TransferProgress(total, plan.length, basename(root));
  const work = (async () => {
    for (const { name, local } of plan) {
      mkdirSync(dirname(local), { recursive: true });
      await downloadFile(client, name, local, progress);
    }
  })();
  await transfer(progress, work, () => `interrupted: ${progress.filesDone} of ${plan.length} files of ${prefix} downloaded into ${target}/, no part-file left`);
  note(`${prefix} -> ${target}/ (${plan.length} files, ${formatBytes(total)})`);
}

/** `gdflow data get`: download a data item to a file (or stdout), or a folder of them into a directory. */
export function registerDataGet(data: Command): void {
  clientCommand(
    data
      .command('get <name> [target]')
      .description(
        'download a data item to TARGET (default: its base name here; - for stdout), or every item below a folder NAME/ into the directory TARGET ' +
          "(default: the folder's name here), with a progress bar",
      ),
  ).action(async (name: string, target: string | undefined, flags: ClientFlags) => {
    const client = clientFor(flags);
    if (name.endsWith('/')) return getFolder(client, name, target);
    const response = await client.getData(name).catch(async (error: unknown) => {
      if (error instanceof GdApiError && error.status === 404 && (await hasItemsBelow(client, `${name}/`))) return undefined;
      return missingData(client, name)(error);
    });
    if (!response) return getFolder(client, `${name}/`, target);
    if (target === '-') return pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), process.stdout);
    const file = target ?? basename((await client.dataRef(name)).path);
    const size = Number(response.headers.get('content-length') ?? 0);
    const progress = new TransferProgress(size, 1, basename(file));
    await transfer(progress, downloadFile(client, name, file, progress, response), () => `interrupted: ${name} was not downloaded (no partial file left)`);
    note(`${name} -> ${file} (${formatBytes(size)})`);
  });
}
