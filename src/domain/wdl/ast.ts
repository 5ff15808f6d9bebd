import type { Pos } from './errors.js';
import type { WdlType } from './types.js';

/** The syntax tree of a WDL document (spec "WDL Language Specification"), positions kept for messages. */

/** A placeholder's options: `sep`, `true`/`false`, `default` (spec "Expression Placeholder Options"). */
export interface PlaceholderOptions {
  readonly sep?: string;
  readonly true?: string;
  readonly false?: string;
  readonly default?: string;
}

/** A string or command: literal text and placeholders, in order. */
export type StringPart = string | { readonly expr: Expr; readonly options: PlaceholderOptions };

export type Expr =
  | { readonly kind: 'literal'; readonly pos: Pos; readonly type: 'Int' | 'Float' | 'Boolean' | 'None'; readonly value: number | boolean | null }
  | { readonly kind: 'string'; readonly pos: Pos; readonly parts: readonly StringPart[] }
  | { readonly kind: 'ident'; readonly pos: Pos; readonly name: string }
  | { readonly kind: 'array'; readonly pos: Pos; readonly items: readonly Expr[] }
  | { readonly kind: 'pair'; readonly pos: Pos; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'map'; readonly pos: Pos; readonly entries: readonly (readonly [Expr, Expr])[] }
  | { readonly kind: 'object'; readonly pos: Pos; readonly struct?: string; readonly members: readonly (readonly [string, Expr])[] }
  | { readonly kind: 'unary'; readonly pos: Pos; readonly op: '!' | '-' | '+'; readonly operand: Expr }
  | { readonly kind: 'binary'; readonly pos: Pos; readonly op: string; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'if'; readonly pos: Pos; readonly cond: Expr; readonly then: Expr; readonly else: Expr }
  | { readonly kind: 'index'; readonly pos: Pos; readonly target: Expr; readonly index: Expr }
  | { readonly kind: 'member'; readonly pos: Pos; readonly target: Expr; readonly name: string }
  | { readonly kind: 'call'; readonly pos: Pos; readonly name: string; readonly args: readonly Expr[] };

export interface Decl {
  readonly pos: Pos;
  readonly type: WdlType;
  readonly name: string;
  readonly expr?: Expr;
}

/** A `meta`/`parameter_meta`/`hints` value: JSON-like. */
export type MetaValue = null | boolean | number | string | readonly MetaValue[] | { readonly [key: string]: MetaValue };

export interface Task {
  readonly pos: Pos;
  readonly name: string;
  readonly inputs: readonly Decl[];
  /** Declarations of the body outside `input` and `output`, in order. */
  readonly privates: readonly Decl[];
  readonly command: readonly StringPart[];
  readonly commandPos: Pos;
  readonly outputs: readonly Decl[];
  /** `runtime` and 1.1's `requirements` (one of them), by key. */
  readonly runtime: ReadonlyMap<string, Expr>;
  readonly hints: { readonly [key: string]: MetaValue };
  readonly meta: { readonly [key: string]: MetaValue };
  readonly parameterMeta: { readonly [key: string]: MetaValue };
}

export interface Call {
  readonly kind: 'call';
  readonly pos: Pos;
  /** The callee as written: `task`, `lib.task`. */
  readonly callee: string;
  readonly alias: string;
  readonly after: readonly string[];
  readonly inputs: readonly (readonly [string, Expr])[];
}

export interface Scatter {
  readonly kind: 'scatter';
  readonly pos: Pos;
  readonly variable: string;
  readonly expr: Expr;
  readonly body: readonly WorkflowElement[];
}

export interface Conditional {
  readonly kind: 'if';
  readonly pos: Pos;
  readonly expr: Expr;
  readonly body: readonly WorkflowElement[];
}

export type WorkflowElement = ({ readonly kind: 'decl' } & Decl) | Call | Scatter | Conditional;

export interface Workflow {
  readonly pos: Pos;
  readonly name: string;
  readonly inputs: readonly Decl[];
  readonly body: readonly WorkflowElement[];
  /** Absent: no output section (1.0: every call's outputs are the workflow's). */
  readonly outputs: readonly Decl[] | undefined;
  readonly meta: { readonly [key: string]: MetaValue };
  readonly parameterMeta: { readonly [key: string]: MetaValue };
  readonly allowNestedInputs: boolean;
}

export interface Import {
  readonly pos: Pos;
  readonly uri: string;
  /** The namespace: `as` or the file's name without `.wdl`. */
  readonly namespace: string;
  /** `alias Old as New`: structs of the import renamed here. */
  readonly aliases: readonly (readonly [string, string])[];
}

export interface StructDef {
  readonly pos: Pos;
  readonly name: string;
  readonly members: readonly Decl[];
}

export interface Document {
  readonly file: string;
  readonly version: string;
  readonly imports: readonly Import[];
  readonly structs: readonly StructDef[];
  readonly tasks: readonly Task[];
  readonly workflow: Workflow | undefined;
}
