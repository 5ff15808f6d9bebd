/** findCycle and dependencyOrder (src/domain/graph-cycle.ts): what the WDL checker and the engine's expansions refuse instead of waiting forever. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dependencyOrder, findCycle } from '../../src/domain/graph-cycle.js';

describe('findCycle', () => {
  const cases: [string, Record<string, string[]>, string[] | undefined][] = [
    ['no nodes', {}, undefined],
    ['a chain', { a: ['b'], b: ['c'], c: [] }, undefined],
    ['a diamond', { a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }, undefined],
    ['a node that depends on itself', { a: ['a'] }, ['a']],
    ['two nodes that depend on each other', { a: ['b'], b: ['a'] }, ['a', 'b']],
    ['a cycle downstream of a node outside it', { x: ['a'], a: ['b'], b: ['c'], c: ['a'] }, ['a', 'b', 'c']],
    ['dependencies outside the graph are ignored', { a: ['elsewhere'], b: ['a'] }, undefined],
  ];
  for (const [what, graph, cycle] of cases) {
    it(what, () => assert.deepEqual(findCycle(new Map(Object.entries(graph))), cycle));
  }

  it('a chain of 100000 nodes (no recursion to overflow) and its closing edge', () => {
    const graph = new Map(Array.from({ length: 100_000 }, (_, i) => [i, i + 1 < 100_000 ? [i + 1] : []]));
    assert.equal(findCycle(graph), undefined);
    graph.set(99_999, [0]);
    assert.equal(findCycle(graph)?.length, 100_000);
  });
});

describe('dependencyOrder', () => {
  const cases: [string, Record<string, string[]>, string[]][] = [
    ['already in order', { a: [], b: ['a'], c: ['b'] }, ['a', 'b', 'c']],
    ['a node before what it waits for (a WDL input that reads a call)', { y: ['d1'], d1: [], d2: ['y'] }, ['d1', 'y', 'd2']],
    ['independent nodes keep their order', { b: [], a: [], c: ['a'] }, ['b', 'a', 'c']],
    ['dependencies outside the graph are ignored', { a: ['elsewhere'] }, ['a']],
  ];
  for (const [what, graph, order] of cases) {
    it(what, () => assert.deepEqual(dependencyOrder(new Map(Object.entries(graph))), order));
  }
});
