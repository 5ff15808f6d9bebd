import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths.js';
import { readImportGraph, type ImportEdge, type ImportGraph } from './import-graph.js';
import { importCircles, otherViolations, unplacedParts, upwardImports } from './house-rules.js';

/** src/ as it is in this checkout. */
const graph = readImportGraph(join(repoRoot(), 'src'));

/** A graph written out by hand: `{ 'a.ts': ['b.ts'] }`; names without a `.ts` or `/` are packages. */
function graphOf(files: Record<string, string[]>): ImportGraph {
  const edge = (to: string): ImportEdge => ({ to, external: !to.endsWith('.ts'), typeOnly: false });
  return new Map(Object.entries(files).map(([file, to]) => [file, to.map(edge)]));
}

describe('the import graph of src/ (README, "Layout")', () => {
  it('is read from every source file, with type-only and re-exported imports', () => {
    assert.ok(graph.size > 300, `${graph.size} files`);
    const app = graph.get('server/app.ts') ?? [];
    assert.ok(
      app.some((e) => e.to === 'fastify' && e.external),
      'server/app.ts imports fastify',
    );
    assert.ok(app.some((e) => e.to === 'server/errors.ts' && !e.typeOnly));
    assert.ok(
      (graph.get('server/start.ts') ?? []).some((e) => e.to === 'engine/index.ts'),
      'server/start.ts imports the engine',
    );
    assert.ok((graph.get('domain/tools/service.ts') ?? []).some((e) => e.to === 'store/store.ts'));
  });

  it('places every part of src/ in a tier', () => {
    assert.deepEqual(unplacedParts(graph), []);
  });

  it('has no import circle', () => {
    assert.deepEqual(importCircles(graph), []);
  });

  it('has no import running up the tiers (cli -> server -> engine -> domain -> store) or between parts side by side', () => {
    assert.deepEqual(upwardImports(graph), []);
  });

  it('has no route importing the app, no server import past engine/index.ts, an SDK on its own and no HTTP below the server', () => {
    assert.deepEqual(otherViolations(graph), []);
  });
});

describe('the house rules themselves', () => {
  it('find a circle of any length, a file importing itself, and nothing in a tree', () => {
    const circles = importCircles(
      graphOf({
        'domain/a.ts': ['domain/b.ts'],
        'domain/b.ts': ['domain/c.ts', 'store/x.ts'],
        'domain/c.ts': ['domain/a.ts'],
        'store/x.ts': ['store/x.ts'],
        'store/y.ts': ['store/x.ts'],
      }),
    );
    assert.deepEqual(circles, [['domain/a.ts', 'domain/b.ts', 'domain/c.ts'], ['store/x.ts']]);
    assert.deepEqual(importCircles(graphOf({ 'cli/a.ts': ['server/b.ts', 'domain/c.ts'], 'server/b.ts': ['domain/c.ts'], 'domain/c.ts': [] })), []);
  });

  it('find an import up the tiers and one between parts side by side, and allow one down', () => {
    const found = upwardImports(
      graphOf({
        'store/open.ts': ['config/config.ts', 'ids.ts'],
        'store/x.ts': ['data/index.ts'],
        'engine/a.ts': ['domain/b.ts', 'store/store.ts', 'contract/limits.ts'],
        'config/config.ts': [],
        'data/index.ts': [],
      }),
    );
    assert.deepEqual(found, ['store/open.ts -> config/config.ts (store is below config)', 'store/x.ts -> data/index.ts (store and data are side by side)']);
  });

  it('find a route importing the app, the server entering the engine by a side door, the SDK importing the domain, and fastify in the domain', () => {
    const found = otherViolations(
      graphOf({
        'server/routes/tools.ts': ['server/app.ts', 'server/route-options.ts'],
        'server/start.ts': ['engine/index.ts', 'engine/layout.ts'],
        'client/client.ts': ['contract/routes.ts', 'data/names.ts', 'domain/names.ts'],
        'domain/service.ts': ['fastify', 'kysely'],
      }),
    );
    assert.deepEqual(found, [
      'client/client.ts -> domain/names.ts (the SDK imports only client/, contract/, signing/, data/names.ts)',
      'domain/service.ts imports fastify, which domain/ never does',
      'server/routes/tools.ts -> server/app.ts (routes get what they need from the request and their context, never from the app)',
      'server/start.ts -> engine/layout.ts (the server uses the engine through engine/index.ts only)',
    ]);
  });

  it('refuse a part of src/ that is in no tier', () => {
    assert.deepEqual(unplacedParts(graphOf({ 'plugins/a.ts': [], 'server/b.ts': [] })), ['plugins']);
  });
});
