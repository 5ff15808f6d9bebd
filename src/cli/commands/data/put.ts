import { readdirSync, statSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import { DataPathError } from '../../../client/data-names.js';
import type { DataPutResult } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { usageError } from '../../exit.js';
import { interruptible } from '../../interrupt.js';
import { formatBytes, note, printJson, say } from '../../output.js';
import { TransferProgress, uploadFile } from './transfer.js';

interface Upload {
  file: string;
  name: string;
  size: number;
}

function statOf(path: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw usageError(`${path}: no such file or directory`);
    throw error;
  }
}

function statSafe(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The files below `dir`, each with its data name below `name`, sorted. Links to files are followed; links to
 * directories are not (a link back up would never end), and neither are sockets or devices: those are said and left.
 */
function folderUploads(dir: string, name: string): Upload[] {
  const uploads: Upload[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    // A link's target, or undefined for a broken link.
    const target = entry.isSymbolicLink() ? statSafe(path) : undefined;
    if (entry.isDirectory()) uploads.push(...folderUploads(path, `${name}/${entry.name}`));
    else if (entry.isFile() || target?.isFile()) uploads.push({ file: path, name: `${name}/${entry.name}`, size: statOf(path).size });
    else note(`${path}: skipped (${!entry.isSymbolicLink() ? 'not a regular file' : target ? 'a link to a directory' : 'a broken link'})`);
  }
  return uploads;
}

/**
 * What to upload: `FILE NAME`, `FILE... DIR/` (each under its base name), and folders alike: `DIR NAME` stores DIR's
 * files below NAME, `DIR NAME/` below NAME/<DIR's name>, as `cp -r` does.
 */
function plan(sources: string[], target: string): Upload[] {
  const into = target.endsWith('/');
  if (sources.length > 1 && !into) throw usageError(`with several files or folders the data name must be a directory ending in '/', not '${target}'`);
  return sources.flatMap((source) => {
    const st = statOf(source);
    const name = into ? `${target}${basename(source)}` : target;
    if (st.isDirectory()) {
      const uploads = folderUploads(source, name.replace(/\/+$/, ''));
      if (uploads.length === 0) throw usageError(`${source} holds no files to upload`);
      return uploads;
    }
    if (!st.isFile()) throw usageError(`${source} is not a regular file or a directory`);
    return [{ file: source, name, size: st.size }];
  });
}

/** `gdflow data put`: upload local files and folders. */
export function registerDataPut(data: Command): void {
  clientCommand(
    data
      .command('put <files_and_name...>')
      .description(
        "upload files and folders (recursively, with a progress bar): 'put FILE NAME', 'put DIR NAME' (DIR's files below NAME), " +
          "or 'put FILE_OR_DIR... DIR/' into a directory (a name ending in /)",
      ),
  )
    .option('--json', 'print what was stored as JSON')
    .action(async (args: string[], flags: ClientFlags & { json?: boolean }) => {
      if (args.length < 2) throw usageError("give the local file(s) or folder(s) and the data name, e.g. 'gdflow data put reads.fq /samples/s1/reads.fq'");
      const uploads = plan(args.slice(0, -1), args[args.length - 1]!);
      const client = clientFor(flags);
      // Every name is checked before the first byte goes: a folder with one bad name uploads nothing.
      const bad = [];
      for (const upload of uploads) {
        try {
          await client.dataRef(upload.name);
        } catch (error) {
          if (!(error instanceof DataPathError)) throw error;
          bad.push(`${upload.file}: ${error.message}`);
        }
      }
      if (bad.length === 1) throw usageError(`nothing was uploaded: ${bad[0]}`);
      const more = bad.length > 20 ? `\n  ... and ${bad.length - 20} more` : '';
      if (bad.length > 1) throw usageError(`nothing was uploaded:\n  ${bad.slice(0, 20).join('\n  ')}${more}`);

      const total = uploads.reduce((sum, upload) => sum + upload.size, 0);
      const progress = new TransferProgress(total, uploads.length, uploads.length === 1 ? basename(uploads[0]!.file) : 'uploading');
      const results: DataPutResult[] = [];
      const work = (async () => {
        for (const upload of uploads) {
          const stored = await uploadFile(client, upload.file, upload.name, upload.size, progress);
          results.push(stored);
        }
      })();
      try {
        const interrupted = () => `interrupted: ${results.length} of ${uploads.length} files uploaded (not the one in flight); run the same command again`;
        await interruptible(work, interrupted);
      } finally {
        progress.stop();
      }
      if (flags.json) return printJson(results);
      // After the bar, not through it: one line per file stored.
      for (const [i, stored] of results.entries()) say(`${uploads[i]!.file} -> ${stored.name} (${formatBytes(stored.size)}, md5 ${stored.md5})`);
    });
}
