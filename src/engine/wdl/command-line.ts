import { STDERR_NAME, STDOUT_NAME } from './work-files.js';

const q = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The command a task call's run is: its script (the rendered command section, staged as a file, so that it is never
 * a string the server's shell parses) run by bash where the image has it (sh otherwise), its streams kept in the
 * working directory for stdout()/stderr() and copied to the job's logs afterwards (bench:wdl: a trivial call's wrapper
 * costs a few processes more than a CWL tool's command, which is most of what a WDL scatter costs beyond CWL's).
 */
export function commandLine(script: string): string {
  const out = q(STDOUT_NAME);
  const err = q(STDERR_NAME);
  return [
    `if command -v bash >/dev/null 2>&1; then bash ${q(script)} >${out} 2>${err}; else sh ${q(script)} >${out} 2>${err}; fi`,
    'rc=$?',
    // `[` is the shell's own: a stream the command left empty (most of them) costs no cat process.
    `[ -s ${out} ] && cat ${out}`,
    `[ -s ${err} ] && cat ${err} >&2`,
    'exit $rc',
  ].join('\n');
}
