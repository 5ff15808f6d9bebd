import { readFile } from 'node:fs/promises';
import { basename, dirname, join, posix, resolve } from 'node:path';
import { loadWdl, type WdlBundle } from '../../domain/wdl/index.js';
import type { WdlSources } from '../../domain/wdl/load.js';
import { parseDocument } from '../../domain/wdl/parser/document.js';

/** A WDL document read from disk with every file it imports, and the bundle they check into. */
export interface LocalWdl {
  readonly sources: WdlSources;
  readonly bundle: WdlBundle;
}

/**
 * DOC.wdl and the files it imports (their paths relative to the importing file, read from disk, as miniwdl reads
 * them), parsed and type-checked here as the server will check them: a document in error fails before anything is
 * sent, with its file, line and column (a WdlError). A missing import or a URL is left to the check, which names it.
 */
export async function readLocalWdl(document: string): Promise<LocalWdl> {
  const mainPath = resolve(document);
  const root = dirname(mainPath);
  const mainName = basename(mainPath);
  const main = await readFile(mainPath, 'utf8');
  const files: Record<string, string> = {};
  const pending: [string, string][] = [[mainName, main]];
  const seen = new Set([mainName]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [path, text] = next;
    let imports: readonly { readonly uri: string }[];
    try {
      imports = parseDocument(text, path).imports;
    } catch {
      continue; // the check below reports the error with its place
    }
    for (const { uri } of imports) {
      if (/^[a-z]+:\/\//i.test(uri)) continue;
      const target = posix.normalize(posix.join(posix.dirname(path), uri));
      if (seen.has(target)) continue;
      seen.add(target);
      const imported = await readFile(join(root, target), 'utf8').catch(() => undefined);
      if (imported === undefined) continue;
      files[target] = imported;
      pending.push([target, imported]);
    }
  }
  const sources = { main, mainName, files };
  return { sources, bundle: loadWdl(sources) };
}
