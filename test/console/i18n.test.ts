/**
 * The console's Chinese (issue 16): every text the console passes to t() has its translation in console/src/zh.ts,
 * as do the states and parameter kinds it translates as values, and every translation keeps the text's {names}.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths.js';

const source = join(repoRoot(), 'console', 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

const unquote = (text: string): string => text.replace(/\\(.)/g, '$1');

/** The Chinese table, read as text (zh.ts is browser code, outside the server's build): key → translation. */
function table(): Map<string, string> {
  const text = readFileSync(join(source, 'zh.ts'), 'utf8');
  const entries = new Map<string, string>();
  const entry = /^\s+(?:'((?:[^'\\]|\\.)*)'|([A-Za-z]\w*)):\s*(?:\n\s*)?'((?:[^'\\]|\\.)*)',?$/gm;
  for (let m = entry.exec(text); m; m = entry.exec(text)) entries.set(unquote(m[1] ?? m[2]!), unquote(m[3]!));
  return entries;
}

describe('console texts in Chinese', () => {
  const zh = table();

  it('has a translation of every text passed to t()', () => {
    const used = new Set<string>();
    for (const file of files(source)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bt\('((?:[^'\\]|\\.)*)'/g)) used.add(unquote(m[1]!));
    }
    assert.ok(used.size > 150, `${used.size} texts`);
    const missing = [...used].filter((key) => !zh.has(key));
    assert.deepEqual(missing, []);
  });

  it('translates the states and kinds shown as values, and the section names', () => {
    for (const key of ['scheduled', 'queued', 'running', 'stopping', 'succeeded', 'failed', 'stopped', 'waiting', 'cancelled', 'checked', 'unchecked', 'integer', 'number', 'flag', 'string', 'Tools', 'Workflows', 'Tasks', 'Data']) {
      assert.ok(zh.has(key), key);
    }
  });

  it('keeps the {names} of each text in its translation', () => {
    for (const [key, value] of zh) {
      const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      assert.deepEqual(names(value), names(key), key);
    }
  });
});
