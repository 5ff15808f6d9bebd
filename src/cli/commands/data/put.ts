import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { Client } from '../../../client/client.js';
import type { DataPutResult } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { usageError } from '../../exit.js';
import { formatBytes, printJson, say } from '../../output.js';
import { progressBar } from '../../progress.js';

/** Files up to this size are sent from memory (with retries); larger ones are streamed once. */
const IN_MEMORY_LIMIT = 16 * 1024 * 1024;

async function md5Base64(file: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(file), hash);
  return hash.digest('base64');
}

async function upload(client: Client, file: string, name: string, size: number): Promise<DataPutResult> {
  if (size <= IN_MEMORY_LIMIT) return client.putData(name, await readFile(file));
  // Hash first so that the server can refuse a body that changed or was damaged in transit.
  const contentMd5 = await md5Base64(file);
  const bar = progressBar(size, `${basename(file)} [{bar}] {percentage}% | {sent} of {size} | ETA {eta_formatted}`, { payload: { sent: formatBytes(0), size: formatBytes(size) } });
  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      bar.update(sent, { sent: formatBytes(sent), size: formatBytes(size) });
      done(null, chunk);
    },
  });
  try {
    const source = createReadStream(file);
    // pipe() does not forward errors: a read failure must fail the upload, not hang it.
    source.on('error', (error) => counter.destroy(error));
    return await client.putData(name, source.pipe(counter), { contentMd5 });
  } finally {
    bar.stop();
  }
}

/** `gdflow data put`: upload local files. */
export function registerDataPut(data: Command): void {
  clientCommand(data.command('put <files_and_name...>').description("upload files: 'put FILE NAME', or 'put FILE... DIR/' into a directory (a name ending in /)"))
    .option('--json', 'print what was stored as JSON')
    .action(async (args: string[], flags: ClientFlags & { json?: boolean }) => {
      if (args.length < 2) throw usageError("give the local file(s) and the data name, e.g. 'gdflow data put reads.fq /samples/s1/reads.fq'");
      const target = args[args.length - 1]!;
      const files = args.slice(0, -1);
      if (files.length > 1 && !target.endsWith('/')) throw usageError(`with several files the data name must be a directory ending in '/', not '${target}'`);
      const sizes = files.map((file) => {
        try {
          const st = statSync(file);
          if (!st.isFile()) throw usageError(`${file} is not a regular file`);
          return st.size;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw usageError(`${file}: no such file`);
          throw error;
        }
      });
      const client = clientFor(flags);
      const results: DataPutResult[] = [];
      for (const [i, file] of files.entries()) {
        const name = target.endsWith('/') ? `${target}${basename(file)}` : target;
        const stored = await upload(client, file, name, sizes[i]!);
        results.push(stored);
        if (!flags.json) say(`${file} -> ${stored.name} (${formatBytes(stored.size)}, md5 ${stored.md5})`);
      }
      if (flags.json) printJson(results);
    });
}
