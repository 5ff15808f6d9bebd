import { command } from './command.js';
import { fileName, outputFiles, stagedInputs, workDir } from './layout.js';
import type { CwlFile, CwlInputs, CwlRuntime, EmbeddedLayout } from './types.js';

/**
 * The code gdflow embeds in an exported CWL document (InlineJavascriptRequirement's expressionLib), bundled by
 * scripts/build-cwl-embedded.mjs into one ES5 script that defines the global `gdflow` with these functions. The
 * document's expressions call them with the static descriptions the exporter wrote (types.ts) and the runner's
 * `inputs` and `runtime`:
 *
 *   arguments: [{valueFrom: '$(gdflow.command({...}, inputs, runtime))', shellQuote: false}]
 *   InitialWorkDirRequirement: {listing: ['$(gdflow.workDir({...}, inputs))']}
 *   outputs: {bam: {outputBinding: {glob: '$(gdflow.outputFiles({...}, "bam", inputs))'}}}
 */

/** Where the file connected to the command's standard input is (the stdin port's only file). */
function stdin(layout: EmbeddedLayout, port: string, inputs: CwlInputs, runtime: CwlRuntime): string | null {
  const path = stagedInputs(layout, inputs)[port]?.paths[0];
  return path === undefined ? null : `${runtime.outdir}/${path}`;
}

/** The file the command's standard output goes to, relative to the working directory (the stdout port's file). */
function stdout(layout: EmbeddedLayout, port: string, inputs: CwlInputs): string {
  return outputFiles(layout, port, inputs)[0]!;
}

/** An output list as the glob found it, or the names of the files the command did not write (gdflow fails the job). */
function collected(layout: EmbeddedLayout, port: string, inputs: CwlInputs, found: CwlFile[] | null): CwlFile[] {
  const files = found ?? [];
  const names = new Set(files.map(fileName));
  const missing = outputFiles(layout, port, inputs).filter((path) => !names.has(path.slice(path.lastIndexOf('/') + 1)));
  if (missing.length > 0) throw new Error(`the command exited 0 but did not write ${missing.join(', ')}`);
  return files;
}

export { collected, command, outputFiles, stdin, stdout, workDir };
