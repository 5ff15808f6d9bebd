/**
 * The import graph of src/, read with the TypeScript compiler API: every `import`, `export ... from`, `import type`,
 * dynamic `import()` and `import('...').Type` of every source file, resolved as tsc resolves it (NodeNext). Type-only
 * imports count: a circle of types is still a circle a reader must follow, and an upward type import still ties a
 * lower layer to a higher one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** The imported file, relative to src/ with `/` separators (`domain/tools/definition.ts`), or a package name. */
  to: string;
  /** Whether `to` is a package (`fastify`, `node:fs`) rather than a file of src/. */
  external: boolean;
  typeOnly: boolean;
}

/** File (relative to src/) → what it imports. */
export type ImportGraph = Map<string, ImportEdge[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The module specifiers a file names, with whether each names types only. */
function specifiers(file: ts.SourceFile): Array<{ text: string; typeOnly: boolean }> {
  const found: Array<{ text: string; typeOnly: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || allTypeOnly(clause));
      found.push({ text: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ text: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push({ text: argument.text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ text: node.argument.literal.text, typeOnly: true });
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      // `declare module 'fastify' { ... }` augments a package: it imports nothing.
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** `import { type A, type B } from` names types only, as `import type` does. */
function allTypeOnly(clause: ts.ImportClause): boolean {
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

const packageName = (specifier: string): string =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? specifier);

/** Read every .ts file under `srcDir` and resolve its imports. */
export function readImportGraph(srcDir: string): ImportGraph {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, resolveJsonModule: true };
  const graph: ImportGraph = new Map();
  const name = (path: string) => relative(srcDir, path).split(sep).join('/');
  for (const path of sourceFiles(srcDir)) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    const edges: ImportEdge[] = [];
    for (const { text, typeOnly } of specifiers(file)) {
      if (!text.startsWith('.')) {
        edges.push({ to: packageName(text), external: true, typeOnly });
        continue;
      }
      const resolved = ts.resolveModuleName(text, path, options, ts.sys).resolvedModule?.resolvedFileName;
      if (!resolved) throw new Error(`${name(path)}: cannot resolve '${text}'`);
      const target = name(resolved);
      // package.json and other files outside src/ are not parts of the house.
      if (target.startsWith('..')) continue;
      edges.push({ to: target, external: false, typeOnly });
    }
    graph.set(name(path), edges);
  }
  return graph;
}
