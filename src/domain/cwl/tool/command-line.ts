import type { JsonMap } from '../expressions/index.js';
import type { CommandLineTool } from '../model.js';
import { quoteWord } from '../../render/shell.js';
import { argumentWords } from './argument-words.js';
import { pendingArguments } from './bindings.js';
import type { ToolExpressions } from './expressions.js';

export interface CommandLine {
  readonly argv: readonly string[];
  readonly command: string;
}

/**
 * The command line of a run, as words and as one `/bin/sh -c` string (gdflow's executors run the latter).
 * Without ShellCommandRequirement every word is quoted for the shell (the first word also when the shell would
 * read it as a keyword or a variable assignment), so the shell runs exactly the words. With it, the words of a
 * binding with `shellQuote: false` go in as they are (pipes, redirections, `&&`), the rest quoted, as cwltool
 * builds `sh -c`.
 */
export async function buildCommandLine(tool: CommandLineTool, values: JsonMap, expressions: ToolExpressions, shell: boolean): Promise<CommandLine> {
  const pieces: string[] = [];
  const words: string[] = [];
  for (const argument of await pendingArguments(tool, values, expressions)) {
    const argumentWordList = await argumentWords(argument, expressions);
    words.push(...argumentWordList);
    pieces.push(...(argument.binding.shellQuote ? argumentWordList.map((w) => shellQuote(w)) : argumentWordList));
  }
  if (shell) {
    const command = pieces.join(' ');
    return { argv: ['/bin/sh', '-c', command], command };
  }
  return { argv: words, command: words.map((w, i) => shellQuote(w, i === 0)).join(' ') };
}

/** Words the shell reads specially in command position; quoted, they are plain names again. */
const SHELL_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'while', 'until', 'for', 'in', 'function', 'select', 'time']);

/** One word for the shell: bare when it holds only safe characters (as Python's shlex.quote), otherwise single-quoted. */
export function shellQuote(word: string, commandPosition = false): string {
  const special = commandPosition && (SHELL_KEYWORDS.has(word) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  return quoteWord(word, special);
}
