import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

/**
 * The submission log of a batch: one JSON line per submitted row (row key → task id, task name),
 * written as soon as the server has answered, so that a batch interrupted at any point can be run
 * again and skips exactly the rows already submitted.
 */
export interface LogEntry {
  key: string;
  row: number;
  task_id: string;
  task_name: string;
  workflow_name: string;
  submitted_at: string;
  /** The task was found on the server by name (a re-run after the log line was lost). */
  adopted?: boolean;
}

/** `<dir>/<sheet>.<workflow>.submitted.jsonl`, next to the sample sheet. */
export function defaultLogPath(sheetPath: string, workflow: string): string {
  const base = basename(sheetPath, extname(sheetPath));
  return join(dirname(sheetPath), `${base}.${workflow}.submitted.jsonl`);
}

/** The entries by key; a line torn by an interruption (or otherwise unreadable) is skipped. */
export function readLog(path: string): { entries: Map<string, LogEntry>; skipped: number } {
  const entries = new Map<string, LogEntry>();
  let skipped = 0;
  if (!existsSync(path)) return { entries, skipped };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as LogEntry;
      if (typeof entry.key === 'string' && typeof entry.task_id === 'string') entries.set(entry.key, entry);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { entries, skipped };
}

/** Appends whole lines with one write each (O_APPEND), so lines of concurrent submissions never interleave. */
export class LogWriter {
  private readonly fd: number;
  constructor(readonly path: string) {
    const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    const torn = text.length > 0 && !text.endsWith('\n');
    this.fd = openSync(path, 'a', 0o644);
    // Start on a fresh line after a line torn by an interruption.
    if (torn) writeSync(this.fd, '\n');
  }
  append(entry: LogEntry): void {
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }
  close(): void {
    closeSync(this.fd);
  }
}
