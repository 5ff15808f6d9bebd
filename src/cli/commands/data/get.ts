import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { formatBytes, note } from '../../output.js';
import { progressBar } from '../../progress.js';

/** `gdflow data get`: download a data item to a file (or stdout). */
export function registerDataGet(data: Command): void {
  clientCommand(data.command('get <name> [file]').description('download a data item to FILE (default: its base name here; - for stdout)')).action(
    async (name: string, file: string | undefined, flags: ClientFlags) => {
      const client = clientFor(flags);
      const response = await client.getData(name);
      const size = Number(response.headers.get('content-length') ?? 0);
      const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
      if (file === '-') {
        await pipeline(body, process.stdout);
        return;
      }
      const target = file ?? basename((await client.dataRef(name)).path);
      const bar = progressBar(size, `${basename(target)} [{bar}] {percentage}% | {got} of {size} | ETA {eta_formatted}`, { payload: { got: formatBytes(0), size: formatBytes(size) } });
      let got = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          got += chunk.length;
          bar.update(got, { got: formatBytes(got), size: formatBytes(size) });
          done(null, chunk);
        },
      });
      // Write beside the target and rename at the end: an interrupted download leaves no partial file.
      const temp = `${target}.gdflow-part`;
      try {
        await pipeline(body, counter, createWriteStream(temp));
        renameSync(temp, target);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      } finally {
        bar.stop();
      }
      note(`${name} -> ${target} (${formatBytes(got)})`);
    },
  );
}
