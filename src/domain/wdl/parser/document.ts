import type { Call, Conditional, Decl, Document, Expr, Import, MetaValue, Scatter, StructDef, Task, Workflow, WorkflowElement } from '../ast.js';
import { WdlError, type Pos } from '../errors.js';
import { parseCommand } from './command.js';
import { ExpressionParser } from './expressions.js';
import { Scanner } from './scanner.js';
import { parseType, startsDeclaration } from './types.js';

const VERSIONS = ['1.0', '1.1'];

/** A WDL 1.0 or 1.1 document (spec "WDL Documents") as its syntax tree; WdlError names where it is wrong. */
export function parseDocument(text: string, file: string): Document {
  return new DocumentParser(new Scanner(text, file)).document();
}

class DocumentParser extends ExpressionParser {
  document(): Document {
    const s = this.s;
    if (!s.is('version')) throw s.unexpected("'version 1.0' or 'version 1.1' first (draft-2 documents are not supported)");
    const at = s.next().pos;
    const version = s.restOfLine();
    if (!VERSIONS.includes(version)) throw new WdlError(at, `version '${version}' is not supported: gdflow reads WDL 1.0 and 1.1`);
    const imports: Import[] = [];
    const structs: StructDef[] = [];
    const tasks: Task[] = [];
    let workflow: Workflow | undefined;
    for (;;) {
      const token = s.peek();
      if (token.type === 'eof') break;
      if (token.text === 'import') imports.push(this.import());
      else if (token.text === 'struct') structs.push(this.struct());
      else if (token.text === 'task') tasks.push(this.task());
      else if (token.text === 'workflow') {
        if (workflow) throw new WdlError(token.pos, 'a document has at most one workflow');
        workflow = this.workflow();
      } else throw s.unexpected("'import', 'struct', 'task' or 'workflow'");
    }
    return { file: s.file, version, imports, structs, tasks, workflow };
  }

  private import(): Import {
    const pos = this.s.next().pos;
    const uri = this.plainString();
    let namespace = (uri.split('/').pop() ?? uri).replace(/\.wdl$/, '');
    if (this.s.accept('as')) namespace = this.s.ident('a namespace').text;
    const aliases: [string, string][] = [];
    while (this.s.accept('alias')) {
      const from = this.s.ident('a struct name').text;
      this.s.expect('as');
      aliases.push([from, this.s.ident('a struct name').text]);
    }
    return { pos, uri, namespace, aliases };
  }

  private struct(): StructDef {
    const pos = this.s.next().pos;
    const name = this.s.ident('a struct name').text;
    this.s.expect('{');
    const members: Decl[] = [];
    while (!this.s.accept('}')) {
      if (this.s.is('meta') || this.s.is('parameter_meta')) {
        this.s.next();
        this.meta();
        continue;
      }
      members.push(this.declaration(false));
    }
    return { pos, name, members };
  }

  private declaration(withValue: boolean | 'optional'): Decl {
    const pos = this.s.peek().pos;
    const type = parseType(this.s);
    const name = this.s.ident('a declaration name').text;
    if (withValue === false) return { pos, type, name };
    if (withValue === 'optional' && !this.s.is('=')) return { pos, type, name };
    this.s.expect('=', "'=' and the declaration's value");
    return { pos, type, name, expr: this.expression() };
  }

  /** A section of declarations: its keyword, `{`, the declarations, `}`. */
  private declarations(withValue: boolean | 'optional'): Decl[] {
    this.s.next();
    this.s.expect('{');
    const decls: Decl[] = [];
    while (!this.s.accept('}')) decls.push(this.declaration(withValue));
    return decls;
  }

  private task(): Task {
    const s = this.s;
    const pos = s.next().pos;
    const name = s.ident('a task name').text;
    s.expect('{');
    let inputs: Decl[] = [];
    const privates: Decl[] = [];
    let outputs: Decl[] = [];
    let command: Task['command'] | undefined;
    let commandPos: Pos = pos;
    const runtime = new Map<string, Expr>();
    let hints: Record<string, MetaValue> = {};
    let meta: Record<string, MetaValue> = {};
    let parameterMeta: Record<string, MetaValue> = {};
    while (!s.accept('}')) {
      const token = s.peek();
      const section = token.text;
      if (section === 'input' && this.sectionFollows()) inputs = this.declarations('optional');
      else if (section === 'output' && this.sectionFollows()) outputs = this.declarations(true);
      else if (section === 'command') {
        commandPos = s.next().pos;
        command = parseCommand(s, this);
      } else if ((section === 'runtime' || section === 'requirements') && this.sectionFollows()) {
        s.next();
        for (const [key, expr] of this.keyedExpressions()) runtime.set(key, expr);
      } else if (section === 'hints' && this.sectionFollows()) {
        s.next();
        hints = this.metaObject();
      } else if (section === 'meta' && this.sectionFollows()) {
        s.next();
        meta = this.metaObject();
      } else if (section === 'parameter_meta' && this.sectionFollows()) {
        s.next();
        parameterMeta = this.metaObject();
      } else if (startsDeclaration(s)) privates.push(this.declaration(true));
      else throw s.unexpected('a task section or a declaration');
    }
    if (command === undefined) throw new WdlError(pos, `task '${name}' has no command section`);
    return { pos, name, inputs, privates, command, commandPos, outputs, runtime, hints, meta, parameterMeta };
  }

  /** Whether the keyword just peeked opens a section (`input {`), not a declaration of a struct of that name. */
  private sectionFollows(): boolean {
    const token = this.s.peek();
    this.s.next();
    const follows = this.s.is('{');
    this.s.reset(token.start);
    return follows;
  }

  private keyedExpressions(): [string, Expr][] {
    this.s.expect('{');
    const entries: [string, Expr][] = [];
    while (!this.s.accept('}')) {
      const key = this.s.ident('a key').text;
      this.s.expect(':');
      entries.push([key, this.expression()]);
      this.s.accept(',');
    }
    return entries;
  }

  private workflow(): Workflow {
    const s = this.s;
    const pos = s.next().pos;
    const name = s.ident('a workflow name').text;
    s.expect('{');
    let inputs: Decl[] = [];
    let outputs: Decl[] | undefined;
    let meta: Record<string, MetaValue> = {};
    let parameterMeta: Record<string, MetaValue> = {};
    let allowNestedInputs = false;
    const body: WorkflowElement[] = [];
    while (!s.accept('}')) {
      const section = s.peek().text;
      if (section === 'input' && this.sectionFollows()) inputs = this.declarations('optional');
      else if (section === 'output' && this.sectionFollows()) outputs = this.declarations(true);
      else if (section === 'meta' && this.sectionFollows()) {
        s.next();
        meta = this.metaObject();
        allowNestedInputs = meta.allowNestedInputs === true;
      } else if (section === 'parameter_meta' && this.sectionFollows()) {
        s.next();
        parameterMeta = this.metaObject();
      } else if (section === 'hints' && this.sectionFollows()) {
        s.next();
        const hints = this.metaObject();
        if (hints.allow_nested_inputs === true || hints.allowNestedInputs === true) allowNestedInputs = true;
      } else body.push(this.element());
    }
    return { pos, name, inputs, body, outputs, meta, parameterMeta, allowNestedInputs };
  }

  private element(): WorkflowElement {
    const s = this.s;
    const token = s.peek();
    if (token.text === 'call') return this.call();
    if (token.text === 'scatter') return this.scatter();
    if (token.text === 'if') return this.conditional();
    if (startsDeclaration(s)) return { kind: 'decl', ...this.declaration(true) };
    throw s.unexpected('a call, scatter, if or declaration');
  }

  private call(): Call {
    const s = this.s;
    const pos = s.next().pos;
    let callee = s.ident('the name of a task or workflow').text;
    while (s.accept('.')) callee += `.${s.ident('a name').text}`;
    const alias = s.accept('as') ? s.ident('an alias').text : callee.split('.').pop()!;
    const after: string[] = [];
    while (s.accept('after')) after.push(s.ident('a call name').text);
    const inputs: [string, Expr][] = [];
    if (s.accept('{')) {
      if (s.accept('input')) s.expect(':');
      while (!s.is('}')) {
        const name = s.ident('an input name');
        if (s.accept('=')) inputs.push([name.text, this.expression()]);
        else inputs.push([name.text, { kind: 'ident', pos: name.pos, name: name.text }]);
        if (!s.accept(',')) break;
      }
      s.expect('}', "',' or '}'");
    }
    return { kind: 'call', pos, callee, alias, after, inputs };
  }

  private scatter(): Scatter {
    const s = this.s;
    const pos = s.next().pos;
    s.expect('(');
    const variable = s.ident('the scatter variable').text;
    s.expect('in');
    const expr = this.expression();
    s.expect(')');
    return { kind: 'scatter', pos, variable, expr, body: this.body() };
  }

  private conditional(): Conditional {
    const s = this.s;
    const pos = s.next().pos;
    s.expect('(');
    const expr = this.expression();
    s.expect(')');
    return { kind: 'if', pos, expr, body: this.body() };
  }

  private body(): WorkflowElement[] {
    this.s.expect('{');
    const body: WorkflowElement[] = [];
    while (!this.s.accept('}')) body.push(this.element());
    return body;
  }

  private meta(): Record<string, MetaValue> {
    return this.metaObject();
  }

  /** `{ key: value ... }` of JSON-like values (spec "Metadata Sections"), commas optional. */
  private metaObject(): Record<string, MetaValue> {
    this.s.expect('{');
    const object: Record<string, MetaValue> = {};
    while (!this.s.accept('}')) {
      const key = this.s.peek().type === 'quote' ? this.plainString() : this.s.ident('a key').text;
      this.s.expect(':');
      object[key] = this.metaValue();
      this.s.accept(',');
    }
    return object;
  }

  private metaValue(): MetaValue {
    const s = this.s;
    const token = s.peek();
    if (token.type === 'quote') return this.plainString();
    if (token.type === 'int' || token.type === 'float') return Number(s.next().text);
    if (token.text === '-') {
      s.next();
      return -Number(s.next().text);
    }
    if (token.text === 'true' || token.text === 'false') return s.next().text === 'true';
    if (token.text === 'null') {
      s.next();
      return null;
    }
    if (token.text === '{') return this.metaObject();
    if (token.text === '[') {
      s.next();
      const items: MetaValue[] = [];
      while (!s.accept(']')) {
        items.push(this.metaValue());
        s.accept(',');
      }
      return items;
    }
    if (token.type === 'ident') {
      // hints may hold `input { ... }` / `output { ... }` groups: kept as objects.
      s.next();
      if (s.is('{')) return this.metaObject();
      return token.text;
    }
    throw s.unexpected('a metadata value');
  }
}
