import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { finishCommand, type UserValue } from '../src/domain/render/shell.js';
import { CLOSE, OPEN } from '../src/domain/render/sentinel.js';
import { fixturePath } from '../test/helpers/paths.js';
import { shellCaseGenerator, type LexCase } from '../test/helpers/shell-corpus.js';
import { machine, median, ROOT } from './lib/processes.js';

/**
 * bench:lexer — the shell lexer (`finishCommand`, src/domain/render/shell.ts) that every job's command goes through,
 * against the named peer: the same function at another revision (BENCH_LEXER_BASE, by default the revision the
 * lexer's differential recording was made from, i.e. the single-function lexer before it became a state machine),
 * taken from git and transpiled with TypeScript's own settings into a temporary directory. Two workloads, in
 * alternating rounds (BENCH_ROUNDS, default 7): 20,000 small random cases of the seeded corpus (most short, three in
 * five refused), and a few large commands as real templates render them (a thousand file paths, a long here-document,
 * nested substitutions), about 0.6 M characters. Prints medians of wall and CPU time per round and the ratios current /
 * peer (on this shared machine, CPU time is the steadier of the two), and checks that both give the same command or
 * refusal for every input.
 */
type Finish = (text: string, userValues: readonly UserValue[]) => string;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const recording = JSON.parse(readFileSync(fixturePath('shell-lexer-corpus.json'), 'utf8')) as { recordedAt: string };
const BASE = process.env.BENCH_LEXER_BASE ?? recording.recordedAt;

async function loadPeer(revision: string): Promise<{ finish: Finish; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-lexer-peer-'));
  for (const file of ['shell', 'errors', 'sentinel']) {
    const source = execFileSync('git', ['show', `${revision}:src/domain/render/${file}.ts`], { cwd: ROOT, encoding: 'utf8' });
    const options = { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 };
    writeFileSync(join(dir, `${file}.js`), ts.transpileModule(source, { compilerOptions: options }).outputText);
  }
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  const module = (await import(pathToFileURL(join(dir, 'shell.js')).href)) as { finishCommand: Finish };
  return { finish: module.finishCommand, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const mark = (value: string): string => OPEN + value + CLOSE;

/** Large commands shaped like real renders: what a 1 MiB command limit lets through. */
function largeCases(): LexCase[] {
  const paths = Array.from({ length: 1000 }, (_, n) => `/var/data/inputs/reads/sample_${n}_R${(n % 2) + 1}.fastq.gz`);
  const userValues = paths.map((value, n) => ({ member: `inputs.reads[${n}]`, value }));
  const named = [...userValues, { member: 'parameters.title', value: 'it\'s a "run" $HOME' }];
  const list = paths.map(mark).join(' ');
  const cases: LexCase[] = [
    { text: `bwa mem -t 4 ${mark('/var/data/inputs/ref/hg38.fa')} ${list} | samtools sort -o ${mark('/var/data/outputs/bam/x.bam')} -`, userValues: named },
    { text: paths.map((p) => `fastqc -o /var/data/fastqc "${mark(p)}" && echo "done: $(basename ${mark(p)})" # ${mark(p)}\n`).join(''), userValues },
    { text: `cat <<'EOF' > /var/data/list\n${paths.map(mark).join('\n')}\nEOF\nwc -l /var/data/list`, userValues },
    { text: `cat <<EOF\n${paths.map((p) => `path=${mark(p)} title=${mark(named.at(-1)!.value)}`).join('\n')}\nEOF\n`, userValues: named },
    {
      text: paths.map((p) => `n=$(( $(zcat ${mark(p)} | wc -l) / 4 )); echo "\`basename '${mark(p)}'\`: $n" ; test -s '${mark(p)}'\n`).join(''),
      userValues,
    },
  ];
  return cases;
}

/** One pass over the cases; refusals are part of the work. */
function pass(finish: Finish, cases: readonly LexCase[]): number {
  let bytes = 0;
  for (const c of cases) {
    try {
      bytes += finish(c.text, c.userValues).length;
    } catch {
      bytes += 1;
    }
  }
  return bytes;
}

function timed(finish: Finish, cases: readonly LexCase[]): { wallMs: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  pass(finish, cases);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const outcome = (finish: Finish, c: LexCase): string => {
  try {
    return `out ${finish(c.text, c.userValues)}`;
  } catch (error) {
    const { message, failure } = error as { message: string; failure?: string };
    return `refused ${failure ?? ''} ${message}`;
  }
};

async function main(): Promise<void> {
  const next = shellCaseGenerator(5);
  const workloads = { small: Array.from({ length: 20_000 }, next), large: largeCases() };
  const peer = await loadPeer(BASE);
  try {
    console.log(`bench:lexer on ${machine()}: current tree vs the lexer at ${BASE}, ${ROUNDS} alternating rounds`);
    for (const [label, cases] of Object.entries(workloads)) {
      const differ = cases.filter((c) => outcome(finishCommand, c) !== outcome(peer.finish, c)).length;
      const chars = cases.reduce((sum, c) => sum + c.text.length, 0);
      for (let n = 0; n < 3; n++) {
        pass(finishCommand, cases);
        pass(peer.finish, cases);
      }
      const rounds = { current: [] as { wallMs: number; cpuMs: number }[], peer: [] as { wallMs: number; cpuMs: number }[] };
      for (let n = 0; n < ROUNDS; n++) {
        rounds.current.push(timed(finishCommand, cases));
        rounds.peer.push(timed(peer.finish, cases));
      }
      const wall = { current: median(rounds.current.map((r) => r.wallMs)), peer: median(rounds.peer.map((r) => r.wallMs)) };
      const cpu = { current: median(rounds.current.map((r) => r.cpuMs)), peer: median(rounds.peer.map((r) => r.cpuMs)) };
      console.log(
        `${label}: ${cases.length} inputs, ${(chars / 1e6).toFixed(2)} M characters; outcomes differing: ${differ}; ` +
          `wall ${wall.current.toFixed(1)} ms (peer ${wall.peer.toFixed(1)} ms, ${(wall.current / wall.peer).toFixed(2)}x), ` +
          `CPU ${cpu.current.toFixed(1)} ms (peer ${cpu.peer.toFixed(1)} ms, ${(cpu.current / cpu.peer).toFixed(2)}x), ` +
          `${(chars / 1e3 / cpu.current).toFixed(1)} M characters per CPU second`,
      );
    }
  } finally {
    peer.cleanup();
  }
}

await main();
