import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '../../client/client.js';
import { downloadFile, TransferProgress } from '../commands/data/transfer.js';

/**
 * A WDL run's outputs made local, as miniwdl prints them: every File the run stored under its output_dir in the data
 * store (`<account>:<output_dir>/name`, the server's names: a second file of one name is `name_2`) downloaded into the
 * output directory under that name, and the value replaced by the local path. The run's output_dir is its own (a new
 * directory for each run), so only the run's Files can name it. Other values stay as the server gave them.
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
  const visit = async (value: unknown): Promise<unknown> => {
    if (typeof value === 'string' && value.startsWith(prefix)) {
      const target = join(outdir, value.slice(prefix.length));
      await downloadFile(client, value, target, bar);
      return target;
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const item of value) out.push(await visit(item));
      return out;
    }
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = await visit(member);
    return out;
  };
  try {
    return await visit(outputs);
  } finally {
    bar.stop();
  }
}
