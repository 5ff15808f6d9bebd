import { stringify as stringifyYaml } from 'yaml';

/** How commands print: JSON for scripts (`--json`), aligned tables and short lines for people. */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printYaml(value: unknown): void {
  process.stdout.write(stringifyYaml(value, { lineWidth: 0 }));
}

export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Progress and notes go to stderr so that stdout stays clean for data and JSON. */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

export type Cell = string | number | boolean | null | undefined;

export interface Column<T> {
  header: string;
  value: (row: T) => Cell;
  /** Right-align (numbers). */
  right?: boolean;
}

const text = (cell: Cell): string => (cell === null || cell === undefined || cell === '' ? '-' : String(cell));

/** An aligned plain-text table with an upper-case header row; `empty` is printed when there are no rows. */
export function formatTable<T>(rows: T[], columns: Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => text(c.value(row)).replace(/\s*\n\s*/g, ' ')));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 && !columns[i]!.right ? v : columns[i]!.right ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n');
}

export function printTable<T>(rows: T[], columns: Column<T>[], empty = '(none)'): void {
  say(rows.length === 0 ? empty : formatTable(rows, columns));
}

/** Unix seconds → `YYYY-MM-DD HH:MM:SS` in local time. */
export function formatTime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '-';
  const d = new Date(seconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Seconds → `45s`, `3m05s`, `2h01m`. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '-';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** How long a task or job ran: end − start, or start → now while it runs. */
export function runTime(item: { startTime: number | null; endTime: number | null }): number | null {
  if (item.startTime === null) return null;
  return (item.endTime ?? Date.now() / 1000) - item.startTime;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
