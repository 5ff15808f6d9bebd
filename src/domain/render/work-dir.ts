import { CLOSE, OPEN, wrap } from './sentinel.js';

/** Where a job's command runs and finds its files, as gdflow's executors show it to the command. */
export const JOB_DIRECTORY = '/var/data';

const MENTION = /\/var\/data(?=$|[^A-Za-z0-9._\-\uE000\uE001])/g;
/** Characters that would make a `/var/data` right after them part of a longer path or of a user value. */
const CONTINUES_PATH = /[A-Za-z0-9._/\-\uE000\uE001]/;

/**
 * The template's own mentions of the job directory (`-h /var/data/fastp.html`, `cd /var/data`) pointed at `workDir`,
 * for a command that runs elsewhere (an exported CWL tool, whose directory is the runner's `runtime.outdir`). Each
 * becomes a user value (wrapped in markers), so that the shell lexer quotes the directory for the place it lands in
 * like any other path. Mentions inside user values are theirs and stay; so do longer names (`/var/database`,
 * `/srv/var/data`, a value followed by `/var/data`).
 */
export function relocateJobDirectory(text: string, workDir: string): string {
  let out = '';
  let copied = 0;
  let depth = 0;
  let scanned = 0;
  for (const match of text.matchAll(MENTION)) {
    const at = match.index;
    for (; scanned < at; scanned++) {
      if (text[scanned] === OPEN) depth++;
      else if (text[scanned] === CLOSE) depth--;
    }
    const before = text[at - 1];
    if (depth !== 0 || (before !== undefined && CONTINUES_PATH.test(before))) continue;
    out += text.slice(copied, at) + wrap(workDir);
    copied = at + match[0].length;
  }
  return out + text.slice(copied);
}
