import { createHash } from 'node:crypto';
import { mulberry32 } from '../../src/demo/reference.js';
import { RenderError } from '../../src/domain/render/errors.js';
import { CLOSE, OPEN } from '../../src/domain/render/sentinel.js';
import type { UserValue } from '../../src/domain/render/shell.js';

/**
 * A seeded corpus of rendered command text, user values still wrapped in their markers: the input of
 * `finishCommand` (src/domain/render/shell.ts) as a template render leaves it. The text is random but shaped like
 * shell: quotes, `$( )`, backticks, `${ }`, `$'...'`, arithmetic in its three spellings, here-documents with every
 * kind of delimiter, here-strings, comments, `case`, line continuations, values right after `$`, `\` or a variable
 * name, values that complete an assignment; then a third of the cases are mutated (a quote, a parenthesis or a marker
 * inserted, a character deleted, the text cut short), so that the lexer's refusals and its "open at its end" paths
 * are walked as often as its quoting.
 *
 * The differential test of the lexer (test/domain/shell-lexer.test.ts) replays it against outcomes recorded from an
 * earlier implementation (scripts/record-shell-corpus.ts): changing anything here changes the corpus, and the
 * recording must then be made again from a lexer known to be right.
 */

export interface LexCase {
  text: string;
  userValues: UserValue[];
}

/** Members and the values they may hold (hostile, integers, assignments, paths, here-document delimiters). */
const MEMBERS: { member: string; values: string[] }[] = [
  {
    member: 'parameters.x',
    values: [
      '$(touch PWNED)',
      '`touch PWNED`',
      '; touch PWNED',
      "' ; touch PWNED ; '",
      '" ; touch PWNED ; "',
      '\\"$(touch PWNED)\\"',
      '\ntouch PWNED',
      '$((1+1))',
      '*',
      'a b',
      '${IFS}',
      "'",
      '"',
      '\\',
      'a\\',
      "it's",
      '$HOME',
      '}',
      ')',
      '!',
      '~',
      'a\tb',
      "$'\\x27'",
      'a[$(touch PWNED)]',
      'x[`touch PWNED`]',
      'héllo wörld 你好',
      'a\r\nb',
    ],
  },
  { member: 'parameters.n', values: ['42', '-7', '+3', '0', '4 2', '1e3', '0x1f'] },
  { member: 'parameters.kv', values: ['a=b', '=1', 'k=v w', 'PATH=x'] },
  { member: 'parameters.word', values: ['plain', 'A_b-1.2', 'x', '--fast'] },
  { member: 'parameters.doc', values: ['EOF', 'x\nEOF\ntouch PWNED\nEOF', '\tEOF', 'a\n\nb\n', 'E', 'EOF\n'] },
  { member: 'inputs.reads[0]', values: ['/var/data/inputs/reads/s1.fq', '/var/data/inputs/reads/s 2.fq', '/var/data/inputs/reads/__touch_x_.fq'] },
  { member: 'outputs.bam[0]', values: ['/var/data/outputs/bam/x.bam', "/var/data/outputs/bam/it's.bam"] },
];

const SPECIALS = ["'", '"', '`', '$', '(', ')', '{', '}', '[', ']', '\\', '#', '\n', ';', '|', '&', '<', '>', '=', ' ', '\t', OPEN, CLOSE];

/** One case per call; the same seed gives the same sequence everywhere. */
export function shellCaseGenerator(seed: number): () => LexCase {
  const random = mulberry32(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const chance = (p: number): boolean => random() < p;
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const many = (min: number, max: number, make: () => string, join = ''): string => Array.from({ length: min + int(max - min + 1) }, make).join(join);
  const backslashed = (text: string): string => text.replace(/[\\`$]/g, (c) => `\\${c}`);

  let values: UserValue[] = [];
  /** A marked value, as the template placed it: whole, or passed through a filter (upper, `~`, a slice). */
  const value = (): string => {
    const { value: v } = pick(values);
    const shaped = pick([v, v, v, v, v.toUpperCase(), `${v}.q`, v.slice(1), `pre-${v}`]);
    if (chance(0.02)) return OPEN + OPEN + shaped + CLOSE + 'z' + CLOSE;
    return OPEN + shaped + CLOSE;
  };
  const plain = (): string => pick(['a', 'b1', '-o', '--out=', 'x=', '=', 'k', '.', '/tmp/f', '*', '~', '%s', '1', 'esac', 'case', 'in']);
  const dollarThing = (d: number): string =>
    pick([
      () => `$${value()}`,
      () => `$v${value()}`,
      () => '$HOME',
      () => '$',
      () => `$(${cmd(d + 1)})`,
      () => `$((${arith(d + 1)}))`,
      () => `$[${arith(d + 1)}]`,
      () => `\${v:-${paramBody(d + 1)}}`,
      () => `$'${ansiBody()}'`,
      () => `$"${dqBody(d + 1)}"`,
      () => '$1x',
    ])();
  const dqBody = (d: number): string =>
    many(0, 4, () => {
      if (chance(0.05)) return pick([() => `\\${value()}`, () => (d < 3 ? `\`${backslashed(cmd(d + 1))}\`` : '`x`')])();
      return pick([
        value,
        value,
        plain,
        () => ' ',
        () => "'",
        () => '\\"',
        () => '\\\\',
        () => '#',
        () => '(',
        () => ')',
        () => '}',
        () => '\n',
        () => (d < 3 ? dollarThing(d) : '$x'),
      ])();
    });
  const sqBody = (): string => many(0, 3, () => pick([value, value, plain, () => '"', () => '\\', () => '$(x)', () => '`', () => ' ', () => '\n'])());
  const ansiBody = (): string => many(0, 3, () => pick([value, plain, () => "\\'", () => '\\n', () => '\\\\', () => '"', () => ' '])());
  const paramBody = (d: number): string =>
    many(0, 3, () =>
      pick([
        plain,
        value,
        () => `'${sqBody()}'`,
        () => `"${d < 3 ? dqBody(d + 1) : 'x'}"`,
        () => "'",
        () => '$x',
        () => (d < 3 ? `$(${cmd(d + 1)})` : '$(x)'),
        () => '\\}',
        () => ' ',
      ])(),
    );
  const arith = (d: number): string =>
    many(1, 5, () =>
      pick([
        () => String(int(100)),
        () => ' + ',
        () => ' * ',
        value,
        value,
        () => '$x',
        () => 'x',
        () => ' ',
        () => `$${value()}`,
        () => `x${value()}`,
        () => (d < 3 ? `(${arith(d + 1)})` : '(1)'),
        () => (d < 3 ? `$(${cmd(d + 1)})` : '$(x)'),
        () => '"1"',
        () => "'1'",
        () => ')',
        () => '(',
        () => ']',
        () => '$((1))',
        () => '$[1]',
        () => '\\',
        () => '#',
        () => (d < 3 ? `\`${backslashed(cmd(d + 1))}\`` : '`x`'),
        () => `"${value()}"`,
        () => `\${v:-${d < 3 ? paramBody(d + 1) : 'x'}}`,
      ])(),
    );
  const part = (d: number): string => {
    if (chance(0.01)) return `\\${value()}`;
    if (chance(0.005)) return `\\${CLOSE}`;
    const options: (() => string)[] = [
      value,
      value,
      value,
      plain,
      plain,
      () => `"${dqBody(d)}"`,
      () => `'${sqBody()}'`,
      () => '\\;',
      () => '\\\n',
      () => '\\',
      () => `${value()}=`,
      () => `${value()}=1`,
    ];
    if (d < 3 && chance(0.02)) return `"\`${backslashed(cmd(d + 1))}\`"`;
    if (d < 3) {
      options.push(
        () => dollarThing(d),
        () => dollarThing(d),
        () => `\`${backslashed(cmd(d + 1))}\``,
        () => `"\${v:-${paramBody(d + 1)}}"`,
        () => `$(( 1 + $(${cmd(d + 1)} | wc -c) ))`,
      );
    }
    return pick(options)();
  };
  const word = (d: number): string => many(1, 3, () => part(d));
  const simple = (d: number): string => pick(['printf %s ', 'echo ', 'x=', ': ', 'test ', 'v=1 ', '', 'cat <<<', 'cat <<< ']) + many(0, 3, () => word(d), ' ');
  const delimiter = (): { raw: string; word: string } =>
    pick([
      { raw: 'EOF', word: 'EOF' },
      { raw: "'EOF'", word: 'EOF' },
      { raw: '"EOF"', word: 'EOF' },
      { raw: '\\EOF', word: 'EOF' },
      { raw: 'E"O"F', word: 'EOF' },
      { raw: '"E\\"F"', word: 'E"F' },
      { raw: "'E", word: 'E' },
      { raw: '', word: '' },
      { raw: value(), word: 'EOF' },
      { raw: `E${value()}`, word: 'EOF' },
      { raw: 'EOF;', word: 'EOF' },
      { raw: '\\', word: '' },
    ]);
  const heredocLine = (d: number): string =>
    chance(0.2)
      ? value()
      : many(0, 3, () =>
          pick([
            () => (chance(0.05) ? CLOSE : '$'),
            value,
            value,
            plain,
            () => ' ',
            () => '$HOME ',
            () => `$${value()}`,
            () => `\\${value()}`,
            () => '\\\\',
            () => '$(x)',
            () => '`x`',
            () => '${x}',
            () => '$[1]',
            () => '\t',
            () => 'EOF',
            () => (d < 3 ? `$(${cmd(d + 1)})` : '$y'),
          ])(),
        );
  const heredoc = (d: number): string => {
    const strip = chance(0.3);
    const { raw, word: end } = delimiter();
    const body = many(0, 3, () => heredocLine(d), '\n');
    const terminator = chance(0.85) ? `${strip && chance(0.5) ? '\t' : ''}${end}\n` : '';
    return `cat <<${strip ? '-' : ''}${pick(['', ' '])}${raw}${pick(['', ' | wc -c', '; echo'])}\n${body}\n${terminator}`;
  };
  const cmd = (d: number): string => {
    const r = random();
    if (r < 0.12 && d < 3) return heredoc(d);
    if (r < 0.17) return `${simple(d)} #${many(0, 2, () => part(d), ' ')}\n`;
    if (r < 0.2) return `for f in ${word(d)}; do echo "$f"; done`;
    if (r < 0.24) return `case ${word(d)} in (*) echo ${word(d)};; esac`;
    if (r < 0.28) return `(( ${arith(d)} ))`;
    if (r < 0.31) return `( ${simple(d)} )`;
    return many(1, 2, () => simple(d), pick(['; ', ' && ', ' | ', '\n', ' & ']));
  };
  /** A few edits that break the shape: the lexer's refusals and open ends. */
  const mutate = (text: string): string => {
    let t = text;
    for (let n = 1 + int(3); n > 0; n--) {
      const at = int(t.length + 1);
      const edit = int(3);
      if (edit === 0) t = t.slice(0, at) + pick(SPECIALS) + t.slice(at);
      else if (edit === 1) t = t.slice(0, at) + t.slice(at + 1);
      else t = t.slice(0, Math.max(at, int(t.length + 1)));
    }
    // Or cut right after a `$` or a backslash, where the lexer looks one character ahead.
    const ends = [...t.matchAll(/[$\\]/g)];
    if (ends.length > 0 && chance(0.2)) t = t.slice(0, pick(ends).index + 1);
    return t;
  };

  return () => {
    values = Array.from({ length: 1 + int(3) }, () => {
      const { member, values: pool } = pick(MEMBERS);
      return { member, value: pick(pool) };
    });
    let text = many(1, 2, () => cmd(0), pick(['\n', '; ']));
    // A value that reached the text without its markers (the last line of defence).
    if (chance(0.03)) text += ` ${pick(values).value}`;
    if (chance(0.33)) text = mutate(text);
    return { text, userValues: values };
  };
}

/** What `finishCommand` made of a case: the command, or the refusal (message and kind), or anything else thrown. */
export type LexOutcome = { out: string } | { refused: string; failure: string } | { threw: string };

export function outcomeOf(finish: (text: string, userValues: readonly UserValue[]) => string, c: LexCase): LexOutcome {
  try {
    return { out: finish(c.text, c.userValues) };
  } catch (error) {
    if (error instanceof RenderError) return { refused: error.message, failure: error.failure };
    return { threw: String(error) };
  }
}

/** A short digest of an outcome, so the recording stays small (32 bits per case: a wrong outcome matching is 1 in 4e9). */
export const digestOf = (outcome: LexOutcome): string => createHash('sha256').update(JSON.stringify(outcome)).digest('hex').slice(0, 8);
