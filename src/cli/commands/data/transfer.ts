import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, renameSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Client } from '../../../client/client.js';
import type { DataPutResult } from '../../../client/types.js';
import { missingData } from '../../not-found.js';
import { formatBytes } from '../../output.js';
import { progressBar, type Progress } from '../../progress.js';

/**
 * Moving files to and from the data store, one file or a folder of them, under one progress bar: the files done,
 * the bytes done of all, and the time left.
 */

/** Files up to this size are sent from memory (with retries); larger ones are streamed once. */
const IN_MEMORY_LIMIT = 16 * 1024 * 1024;

/** Counts the bytes that pass. */
function byteCounter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      done(null, chunk);
    },
  });
}

/** The bar of a transfer of `files` files of `total` bytes; `advance` moves it on. */
export class TransferProgress {
  private bytes = 0;
  private files = 0;
  private readonly bar: Progress;

  /** `enabled`: false for no bar at all (`gdflow cwl run --quiet`); default: a bar when stderr is a terminal. */
  constructor(
    private readonly total: number,
    private readonly count: number,
    label: string,
    enabled?: boolean,
  ) {
    const format = `${label} [{bar}] {percentage}% | {files} | {done} of {size} | ETA {eta_formatted}`;
    this.bar = progressBar(total, format, { payload: this.payload(), ...(enabled === false ? { enabled } : {}) });
  }

  get filesDone(): number {
    return this.files;
  }

  private payload(): Record<string, string> {
    return { files: `${this.files}/${this.count} files`, done: formatBytes(this.bytes), size: formatBytes(this.total) };
  }

  advance(bytes: number, filesDone = 0): void {
    this.bytes += bytes;
    this.files += filesDone;
    this.bar.update(this.bytes, this.payload());
  }

  stop(): void {
    this.bar.stop();
  }
}

/** The files being written now, so that an interrupt can remove what they left. */
const partial = new Set<string>();

/** Remove the part-files of downloads cut short (on Ctrl-C). */
export function removePartialDownloads(): void {
  for (const file of partial) rmSync(file, { force: true });
  partial.clear();
}

/**
 * Download a data item to `target` (from `response` when its GET was already answered): written beside it and
 * renamed at the end, so that an interrupted download leaves no partial file. Returns the bytes written.
 */
export async function downloadFile(client: Client, name: string, target: string, progress: TransferProgress, answered?: Response): Promise<number> {
  return saveResponse(answered ?? (await client.getData(name).catch(missingData(client, name))), target, progress);
}

/** A response's body written to `target` as downloadFile writes it (the WES runner's downloads of output URLs too). */
export async function saveResponse(response: Response, target: string, progress: TransferProgress): Promise<number> {
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  let got = 0;
  const temp = `${target}.gdflow-part`;
  partial.add(temp);
  try {
    await pipeline(
      body,
      byteCounter((n) => {
        got += n;
        progress.advance(n);
      }),
      createWriteStream(temp),
    );
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  } finally {
    partial.delete(temp);
  }
  progress.advance(0, 1);
  return got;
}

async function md5Base64(file: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(file), hash);
  return hash.digest('base64');
}

/** Upload a local file of `size` bytes as the data item `name`. */
export async function uploadFile(client: Client, file: string, name: string, size: number, progress: TransferProgress): Promise<DataPutResult> {
  if (size <= IN_MEMORY_LIMIT) {
    const stored = await client.putData(name, await readFile(file));
    progress.advance(size, 1);
    return stored;
  }
  // Hash first so that the server can refuse a body that changed or was damaged in transit.
  const contentMd5 = await md5Base64(file);
  const counter = byteCounter((n) => progress.advance(n));
  const source = createReadStream(file);
  // pipe() does not forward errors: a read failure must fail the upload, not hang it.
  source.on('error', (error) => counter.destroy(error));
  const stored = await client.putData(name, source.pipe(counter), { contentMd5 });
  progress.advance(0, 1);
  return stored;
}
