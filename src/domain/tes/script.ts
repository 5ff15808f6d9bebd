import { quoteWord } from '../render/shell/contexts.js';
import { TES_DIR } from './paths.js';

/**
 * The command of a TES task's job (docs/ga4gh.md, "Executors"): a POSIX shell script that runs the executors in order,
 * each in a subshell with its working directory, environment and redirections, and records its start, end and exit
 * code in the job directory. Only shell builtins do the recording: the times are the modification times of the
 * `.start` and `.end` files it truncates, not `date` runs, and an executor's log is copied to the job's own only when
 * it is not empty (each process a trivial task started cost ~15 ms on a loaded 2-core machine: BENCHMARKS.md, bench:tes). Every word a client sent is single-quoted: an executor's argv reaches its program as it
 * was sent, and nothing in it is read by the shell. An executor that exits non-zero ends the script with its exit
 * code, unless it asked for `ignore_error`.
 */

export interface ScriptExecutor {
  command: string[];
  workdir?: string;
  stdin?: string;
  stdout?: string;
  stderr?: string;
  env?: Record<string, string>;
  ignore_error?: boolean;
}

/** The log files of executor `i`, relative to the job directory. */
export const executorFiles = (i: number) => ({
  start: `.gdflow-tes/log/${i}.start`,
  end: `.gdflow-tes/log/${i}.end`,
  rc: `.gdflow-tes/log/${i}.rc`,
  out: `.gdflow-tes/log/${i}.out`,
  err: `.gdflow-tes/log/${i}.err`,
});

const q = (word: string): string => quoteWord(word, true);

export function tesScript(executors: readonly ScriptExecutor[]): string {
  const log = `${TES_DIR}/log`;
  const lines = [
    `# GA4GH TES task: ${executors.length} executor${executors.length === 1 ? '' : 's'}, run in order (docs/ga4gh.md)`,
    `L=${log}`,
    `for i in ${executors.map((_, i) => i).join(' ')}; do : >"$L/$i.out"; : >"$L/$i.err"; done`,
  ];
  executors.forEach((executor, i) => {
    const inner = [
      ...Object.entries(executor.env ?? {}).map(([name, value]) => `export ${name}=${q(value)}`),
      ...(executor.workdir !== undefined ? [`cd ${q(executor.workdir)} || exit 126`] : []),
      `exec ${executor.command.map(q).join(' ')}`,
    ];
    const stdin = executor.stdin !== undefined ? q(executor.stdin) : '/dev/null';
    const stdout = executor.stdout !== undefined ? q(executor.stdout) : `"$L/${i}.out"`;
    const stderr = executor.stderr !== undefined ? q(executor.stderr) : `"$L/${i}.err"`;
    lines.push(`# executor ${i}`);
    lines.push(`: >"$L/${i}.start"`);
    lines.push(`( ${inner.join('; ')} ) <${stdin} >${stdout} 2>${stderr}`);
    lines.push(`rc=$?; echo "$rc" >"$L/${i}.rc"; : >"$L/${i}.end"`);
    // What the executor wrote also goes to the job's own log (the console and GeneDock's log routes show it).
    if (executor.stdout === undefined) lines.push(`if [ -s "$L/${i}.out" ]; then cat "$L/${i}.out"; fi`);
    if (executor.stderr === undefined) lines.push(`if [ -s "$L/${i}.err" ]; then cat "$L/${i}.err" >&2; fi`);
    if (!executor.ignore_error) lines.push(`[ "$rc" -eq 0 ] || exit "$rc"`);
  });
  lines.push('exit 0');
  return `${lines.join('\n')}\n`;
}
