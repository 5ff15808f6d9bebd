import { invalid } from '../errors.js';
import { RenderError } from '../render/errors.js';
import { parseTemplate } from '../render/parse.js';

/**
 * Check that a `cmd_template` parses as Jinja2 and refers only to the tool's declared inputs,
 * outputs, parameters and requirements. Undefined variables render as empty strings at run
 * time, so this is the only place a typo such as `inputs.reeds` can be caught.
 */

export interface DeclaredNames {
  inputs: Set<string>;
  outputs: Set<string>;
  parameters: Set<string>;
}

const REQUIREMENT_KEYS: Record<string, Set<string>> = {
  container: new Set(['image', 'type']),
  resources: new Set(['cpu', 'mem', 'disk', 'network', 'port']),
};

/**
 * The filters the template engine (@huggingface/jinja 0.5) applies; any other name fails only when the render
 * reaches it, so it is refused when the tool is put (docs/templates.md lists them).
 */
export const KNOWN_FILTERS = new Set([
  'abs',
  'bool',
  'capitalize',
  'default',
  'first',
  'float',
  'indent',
  'int',
  'items',
  'join',
  'last',
  'length',
  'list',
  'lower',
  'map',
  'rejectattr',
  'replace',
  'reverse',
  'safe',
  'selectattr',
  'sort',
  'string',
  'title',
  'tojson',
  'trim',
  'unique',
  'upper',
]);

/** Names the template may use without declaring them: Jinja's own globals and loop helpers. */
const BUILTINS = new Set(['loop', 'range', 'namespace', 'true', 'false', 'none', 'True', 'False', 'None', 'raise_exception', 'strftime_now', 'caller']);

type Node = { type: string; [key: string]: unknown };

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** The property name of a member access, when it is static (`a.b` or `a['b']`). */
function staticProperty(node: Node): string | undefined {
  const property = node.property as Node;
  if (!node.computed && property.type === 'Identifier') return property.value as string;
  if (node.computed && property.type === 'StringLiteral') return property.value as string;
  return undefined;
}

/** Flatten `a.b.c` to ['a', 'b', 'c'] (stopping at the first dynamic part). */
function memberPath(node: Node): string[] | undefined {
  if (node.type === 'Identifier') return [node.value as string];
  if (node.type !== 'MemberExpression') return undefined;
  const base = memberPath(node.object as Node);
  if (!base) return undefined;
  const property = staticProperty(node);
  return property === undefined ? base : [...base, property];
}

function collectLocals(node: unknown, locals: Set<string>): void {
  if (Array.isArray(node)) {
    for (const child of node) collectLocals(child, locals);
    return;
  }
  if (!isNode(node)) return;
  const bind = (target: unknown): void => {
    if (!isNode(target)) return;
    if (target.type === 'Identifier') locals.add(target.value as string);
    if (target.type === 'TupleLiteral' || target.type === 'ArrayLiteral') for (const t of target.value as unknown[]) bind(t);
    if (target.type === 'KeywordArgumentExpression') bind(target.key);
  };
  if (node.type === 'For') bind(node.loopvar);
  // The library's node for `{% set %}` is named Set (its class is SetStatement).
  if (node.type === 'Set') bind(node.assignee);
  if (node.type === 'Macro') {
    bind(node.name);
    for (const arg of node.args as unknown[]) bind(arg);
  }
  if (node.type === 'CallStatement') for (const arg of (node.callerArgs as unknown[] | null) ?? []) bind(arg);
  for (const value of Object.values(node)) collectLocals(value, locals);
}

/** Parse within the limits every render also keeps (render/parse.ts); a failure is the request's fault. */
function parseChecked(source: string): ReturnType<typeof parseTemplate> {
  try {
    return parseTemplate(source);
  } catch (error) {
    if (error instanceof RenderError) throw invalid(error.message);
    throw error;
  }
}

export function checkTemplateReferences(source: string, declared: DeclaredNames): void {
  const field = 'cmd_template';
  const program = parseChecked(source);
  const locals = new Set<string>();
  collectLocals(program, locals);

  const checkPath = (path: string[]): void => {
    const [root, first, second] = path;
    if (root === undefined || locals.has(root) || BUILTINS.has(root)) return;
    if (root === 'inputs' || root === 'outputs' || root === 'parameters') {
      if (first !== undefined && !declared[root].has(first)) {
        const kind = root.slice(0, -1);
        throw invalid(`${field} refers to ${root}.${first}, but the tool declares no ${kind} '${first}'`);
      }
      return;
    }
    if (root === 'requirements') {
      if (first === undefined) return;
      const allowed = REQUIREMENT_KEYS[first];
      if (!allowed) throw invalid(`${field} refers to requirements.${first}; requirements has only container and resources`);
      if (second !== undefined && !allowed.has(second)) throw invalid(`${field} refers to requirements.${first}.${second}, which is not a requirement`);
      return;
    }
    throw invalid(
      `${field} refers to '${root}', which is not an input, output, parameter or requirement (use inputs.<name>, outputs.<name>, parameters.<name> or requirements.*)`,
    );
  };

  const checkFilter = (filter: Node): void => {
    const named = filter.type === 'CallExpression' ? (filter.callee as Node) : filter;
    const name = named.type === 'Identifier' ? String(named.value) : undefined;
    if (name !== undefined && !KNOWN_FILTERS.has(name)) {
      throw invalid(`${field} uses the filter '${name.slice(0, 40)}', which the template engine does not have (docs/templates.md lists the filters)`);
    }
  };

  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isNode(node)) return;
    switch (node.type) {
      case 'Identifier':
        checkPath([node.value as string]);
        return;
      case 'MemberExpression': {
        const path = memberPath(node);
        if (path) checkPath(path);
        else visit(node.object);
        if (node.computed) visit(node.property);
        return;
      }
      case 'FilterExpression': {
        // The filter's name is not a variable; its arguments are.
        visit(node.operand);
        const filter = node.filter as Node;
        checkFilter(filter);
        if (filter.type === 'CallExpression') visit(filter.args);
        return;
      }
      case 'FilterStatement': {
        const filter = node.filter as Node;
        checkFilter(filter);
        if (filter.type === 'CallExpression') visit(filter.args);
        visit(node.body);
        return;
      }
      case 'TestExpression':
        visit(node.operand);
        return;
      case 'KeywordArgumentExpression':
        visit(node.value);
        return;
      case 'For':
        visit(node.iterable);
        visit(node.body);
        visit(node.defaultBlock);
        return;
      case 'Macro':
        for (const arg of node.args as Node[]) if (arg.type === 'KeywordArgumentExpression') visit(arg.value);
        visit(node.body);
        return;
      case 'Set':
        if (isNode(node.assignee) && node.assignee.type === 'MemberExpression') visit(node.assignee.object);
        visit(node.value);
        visit(node.body);
        return;
      default:
        for (const [key, value] of Object.entries(node)) {
          // An operator is a token (`and`, `or`, `not`, `in` are Identifier tokens), not a name the template uses.
          if (key === 'type' || key === 'operator') continue;
          if (value instanceof Map) for (const [k, v] of value) visit([k, v]);
          else visit(value);
        }
    }
  };
  visit(program);
}
