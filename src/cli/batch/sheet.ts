import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse, type Info } from 'csv-parse/sync';
import { usageError } from '../exit.js';

/**
 * A sample sheet: TSV or CSV with a header row naming the columns that `{$column}` placeholders
 * refer to. TSV (`.tsv`, `.txt`, or a header containing a tab) is split on tabs with no quoting,
 * as spreadsheets and shell scripts write it; CSV follows RFC 4180 quoting.
 */
export interface SheetRow {
  /** 1-based data row number (the header is row 0). */
  row: number;
  /** Line of the file where the row ends (1-based), for messages. */
  line: number;
  values: Record<string, string>;
  /** Set when the row's shape is wrong (field count). */
  problem?: string;
}

export interface SampleSheet {
  path: string;
  delimiter: '\t' | ',';
  columns: string[];
  rows: SheetRow[];
}

function delimiterOf(path: string, text: string): '\t' | ',' {
  const ext = extname(path).toLowerCase();
  if (ext === '.tsv' || ext === '.txt' || ext === '.tab') return '\t';
  if (ext === '.csv') return ',';
  const header = text.split('\n', 1)[0] ?? '';
  return header.includes('\t') ? '\t' : ',';
}

export function readSampleSheet(path: string): SampleSheet {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read sample sheet ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error)}`);
  }
  const delimiter = delimiterOf(path, text);
  let records: Array<{ record: string[]; info: Info }>;
  try {
    records = parse(text, {
      delimiter,
      bom: true,
      info: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      ...(delimiter === '\t' ? { quote: false } : {}),
    }) as unknown as Array<{ record: string[]; info: Info }>;
  } catch (error) {
    throw usageError(`sample sheet ${path} cannot be parsed: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Lines of only delimiters (a spreadsheet's trailing rows) are empty rows too.
  records = records.filter((r) => r.record.some((cell) => cell !== ''));
  const [header, ...data] = records;
  if (!header) throw usageError(`sample sheet ${path} is empty: it needs a header row naming the columns, then one row per sample`);
  // A header written as a comment ('#sample<TAB>read') is still the header.
  const columns = header.record.map((c, i) => (i === 0 ? c.replace(/^#\s*/, '') : c));
  const seen = new Set<string>();
  for (const [i, column] of columns.entries()) {
    if (column === '') throw usageError(`sample sheet ${path}: column ${i + 1} of the header row has no name`);
    if (seen.has(column)) throw usageError(`sample sheet ${path}: column '${column}' appears twice in the header row`);
    seen.add(column);
  }
  const rows = data.map(({ record, info }, i): SheetRow => {
    const values: Record<string, string> = {};
    columns.forEach((column, c) => (values[column] = record[c] ?? ''));
    const row: SheetRow = { row: i + 1, line: info.lines, values };
    if (record.length !== columns.length) row.problem = `has ${record.length} fields, but the header has ${columns.length} (${columns.join(', ')})`;
    return row;
  });
  return { path, delimiter, columns, rows };
}
