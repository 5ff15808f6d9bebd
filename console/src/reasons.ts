/**
 * The engine's reasons in Chinese. A task's and a job's `reason` are English sentences that the engine writes
 * (src/engine, src/domain/tasks), stored as written and answered as they are by the API, which the GeneDock clients
 * read. The console translates them with REASONS (zh.ts): each key is a reason as the engine writes it, with a
 * `{name}` where the engine puts a value, and test/console/i18n.test.ts reads the engine's source to check that
 * every reason it can write has its key. A reason no key matches is shown as written.
 *
 * A placeholder matches by its name (SHAPES: numbers, signals, times, memory sizes, retry kinds); one named `reason` holds a
 * reason of its own, any text, translated in turn (a failed node's reason inside the task's); `why`, `kind`,
 * `when` and `more` hold fragments that must translate (else the key is not the one). Others are kept as written
 * (node ids, paths, images, the operating system's own messages).
 */
import { REASONS } from './zh.js';

const NUMBER = '\\d+';
const SHAPES: Record<string, string> = {
  n: NUMBER,
  next: NUMBER,
  max: NUMBER,
  s: NUMBER,
  mb: NUMBER,
  used: NUMBER,
  id: NUMBER,
  code: '-?\\d+',
  signal: 'SIG[A-Z0-9]+',
  time: '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z',
  size: '\\d+(?:\\.\\d+)? [MG]B',
  kind: '[a-z_]+',
  when: '(?: in \\d+ s)?',
  more: '(?:, with \\d+ MB)?',
  reason: '.*',
};
/** Placeholders whose value is itself translated: `reason` when it can be, the fragments always. */
const FRAGMENTS = new Set(['why', 'kind', 'when', 'more']);

interface Compiled {
  regex: RegExp;
  names: string[];
  zh: string;
  /** How much of the key is fixed text: the most specific key that matches wins. */
  weight: number;
}

let compiled: Compiled[] | undefined;

function compile(): Compiled[] {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Object.entries(REASONS)
    .map(([key, zh]) => {
      const names: string[] = [];
      const parts = key.split(/\{(\w+)\}/);
      let source = '';
      parts.forEach((part, i) => {
        if (i % 2 === 0) source += escape(part);
        else {
          names.push(part);
          source += `(${SHAPES[part] ?? '.+?'})`;
        }
      });
      return { regex: new RegExp(`^${source}$`, 's'), names, zh, weight: parts.filter((_, i) => i % 2 === 0).join('').length };
    })
    .sort((a, b) => b.weight - a.weight);
}

/** The reason in Chinese, or undefined when no key matches it. */
function translate(text: string): string | undefined {
  if (text === '') return '';
  compiled ??= compile();
  next: for (const entry of compiled) {
    const match = entry.regex.exec(text);
    if (!match) continue;
    const values: Record<string, string> = {};
    for (const [i, name] of entry.names.entries()) {
      const value = match[i + 1] ?? '';
      const translated = FRAGMENTS.has(name) || name === 'reason' ? translate(value) : value;
      if (translated === undefined && FRAGMENTS.has(name)) continue next;
      values[name] = translated ?? value;
    }
    return entry.zh.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  }
  return undefined;
}

/** An engine reason in Chinese where REASONS knows it, else as written. */
export function reasonInChinese(text: string): string {
  return translate(text) ?? text;
}
