import * as jinja from '@huggingface/jinja';

/**
 * The part of @huggingface/jinja gdflow uses, with its types stated here. The package's declaration files import
 * their siblings without a file extension (`from "./lexer"`), which TypeScript's NodeNext resolution cannot follow
 * in an ES module package: its exports then reach us as unresolved types that check nothing (skipLibCheck hides the
 * error). The shapes below are the library's own (dist/*.d.ts of 0.5); render/jinja.ts checks at load time that the
 * interpreter methods it hooks exist, and the render tests run every use against the real library.
 */

/** A lexer token: its kind (`Identifier`, `OpenStatement`, `Pipe`, ...) and its text. */
export interface Token {
  readonly type: string;
  readonly value: string;
}

/** A node of the parsed tree: its kind and the kind's own members (walked generically by the checks). */
export interface Node {
  readonly type: string;
  readonly [member: string]: unknown;
}

/** The parsed template: the root node, whose `body` holds the statements. */
export interface Program extends Node {
  readonly type: 'Program';
  readonly body: Node[];
}

/** A value of the interpreter: its kind (`StringValue`, `ArrayValue`, ...) and the JavaScript value it wraps. */
export interface RuntimeValue {
  type: string;
  value: unknown;
}

/** The variables a render sees. */
export interface Environment {
  set(name: string, value: unknown): unknown;
}

export interface Interpreter {
  run(program: Program): RuntimeValue;
}

interface Library {
  tokenize: (source: string, options?: { lstrip_blocks?: boolean; trim_blocks?: boolean }) => Token[];
  parse: (tokens: Token[]) => Program;
  Environment: new () => Environment;
  Interpreter: new (env: Environment) => Interpreter;
}

// Each export is read by name (not the namespace passed around as a whole) so that bundlers keep only these: the
// CWL export embeds this code, and the rest of the library (strftime's Intl, for one) is not ES5 that cwltool accepts.
export const tokenize = jinja.tokenize as unknown as Library['tokenize'];
export const parse = jinja.parse as unknown as Library['parse'];
export const Environment = jinja.Environment as unknown as Library['Environment'];
export const Interpreter = jinja.Interpreter as unknown as Library['Interpreter'];
