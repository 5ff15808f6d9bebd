/**
 * The call cache at activation as pure rules (src/domain/tasks/rules/cached-at-activation.ts): which keys can be made
 * before anything runs, which jobs are hits given what the cache holds, and how each job is created.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  endsAtActivation,
  hitsAtActivation,
  jobsAtActivation,
  keysAtActivation,
  taskEndAtActivation,
  type HitAtActivation,
  type JobAtActivation,
} from '../../src/domain/tasks/rules/cached-at-activation.js';
import type { PlannedJob } from '../../src/domain/tasks/plan.js';

const tool = { name: 't', version: 1, digest: 'd' };

function toolJob(id: string, mounts: Array<{ data: string } | { job: string }>, over: Record<string, unknown> = {}): PlannedJob {
  const deps = mounts.flatMap((m) => ('job' in m ? [m.job] : []));
  const spec = {
    kind: 'tool',
    nodeId: id,
    deps,
    command: `run ${id}`,
    mounts: mounts.map((m, i) => ({
      source: 'data' in m ? { kind: 'data', account: 'a', path: m.data } : { kind: 'job', jobId: m.job, nodeId: m.job, path: 'outputs/out/x.txt' },
      sandboxPath: `/var/data/inputs/in${i}/x.txt`,
    })),
    outputFiles: ['outputs/out/x.txt'],
    cpu: 1,
    memMb: 64,
    network: false,
    image: 'debian',
    tool,
    ...over,
  };
  return { id, nodeId: id, name: 't', spec: spec as unknown as PlannedJob['spec'], command: spec.command, cpu: 1, memMb: 64 };
}

function loadJob(id: string): PlannedJob {
  const spec = { kind: 'load', nodeId: id, deps: [], items: [{ account: 'a', path: '/in/r.fq' }] };
  return { id, nodeId: id, name: 'loaddata', spec: spec as unknown as PlannedJob['spec'], command: '', cpu: 0, memMb: 0 };
}

const hashes: Record<string, string> = { '/in/r.fq': 'h1' };
const dataHash = (_account: string, path: string) => hashes[path];

describe('the call cache at activation', () => {
  it('makes the keys whose inputs are known: stored items hashed already, outputs of jobs with keys', () => {
    const jobs = [
      toolJob('a', [{ data: '/in/r.fq' }]),
      toolJob('b', [{ job: 'a' }]),
      toolJob('c', [{ data: '/in/unhashed.fq' }]),
      toolJob('d', [{ job: 'c' }]),
      toolJob('e', [{ data: '/in/r.fq' }], { callCaching: false }),
      toolJob('f', [{ job: 'e' }]),
      toolJob('g', []),
    ];
    const keys = keysAtActivation(jobs, dataHash);
    assert.deepEqual([...keys.keys()], ['a', 'b', 'g'], 'c reads an item not hashed yet, e is never cached, d and f read their outputs');
    // Inputs are keyed by content under the directory the engine put them in (domain/cache/work-key.ts).
    assert.deepEqual(Object.values(keys.get('a')!.parts.inputs), ['h1']);
    assert.deepEqual(Object.values(keys.get('b')!.parts.inputs), [`${keys.get('a')!.key}:outputs/out/x.txt`]);
    assert.equal(keys.get('a')!.parts.imageDigest, null);
    assert.deepEqual(keys.get('a')!.parts.command, { tokens: [{ w: 'run' }, { w: 'a' }] });
    // The same job makes the same key; another command another.
    assert.equal(keysAtActivation([toolJob('a', [{ data: '/in/r.fq' }])], dataHash).get('a')!.key, keys.get('a')!.key);
    assert.notEqual(keysAtActivation([toolJob('a', [{ data: '/in/r.fq' }], { command: 'other' })], dataHash).get('a')!.key, keys.get('a')!.key);
  });

  it("leaves a TES task's jobs to the worker", () => {
    const tes = { roots: [], dirs: [], stage: [], store: [], problems: [], executors: 1 };
    assert.equal(keysAtActivation([toolJob('a', [], { tes })], dataHash).size, 0);
  });

  const found = (...ids: string[]) => new Map(ids.map((id) => [id, { id: `old-${id}` }]));
  const cases: Array<{ name: string; jobs: PlannedJob[]; found: string[]; hits: string[]; loads: string[] }> = [
    { name: 'a chain all in the cache', jobs: [toolJob('a', []), toolJob('b', [{ job: 'a' }])], found: ['a', 'b'], hits: ['a', 'b'], loads: [] },
    { name: 'a job after a miss is no hit', jobs: [toolJob('a', []), toolJob('b', [{ job: 'a' }])], found: ['b'], hits: [], loads: [] },
    {
      name: 'a load step before a hit is done',
      jobs: [loadJob('l'), { ...toolJob('a', [{ data: '/in/r.fq' }]), spec: { ...toolJob('a', []).spec, deps: ['l'] } }],
      found: ['a'],
      hits: ['a'],
      loads: ['l'],
    },
    { name: 'a load step before no hit is left to the worker', jobs: [loadJob('l'), toolJob('a', [])], found: [], hits: [], loads: [] },
    {
      name: 'a job after two hits, one of them not found',
      jobs: [toolJob('a', []), toolJob('b', []), toolJob('c', [{ job: 'a' }, { job: 'b' }])],
      found: ['a', 'c'],
      hits: ['a'],
      loads: [],
    },
  ];
  for (const c of cases) {
    it(`decides the hits: ${c.name}`, () => {
      const decided = hitsAtActivation(c.jobs, found(...c.found));
      assert.deepEqual([...decided.hits], c.hits);
      assert.deepEqual([...decided.loads], c.loads);
    });
  }

  it('creates hits succeeded with their end, the jobs after them queued, the others as without the cache', () => {
    const jobs = [toolJob('a', []), toolJob('b', [{ job: 'a' }]), toolJob('c', [{ job: 'b' }]), toolJob('d', []), loadJob('l')];
    const key = keysAtActivation(jobs, dataHash).get('a')!;
    const stamps = { 'outputs/out/x.txt': { size: 2, mtimeMs: 5 } };
    const hits = new Map<string, HitAtActivation>([['a', { key, source: { id: 'old-a' }, outputStamps: stamps }]]);
    const rows = jobsAtActivation(jobs, hits, new Set(['l']), 100);
    const reason = 'from the call cache: the outputs of job old-a';
    assert.deepEqual(rows.get('a'), {
      status: 'succeeded',
      reason,
      ended: {
        attempt: 1,
        exitCode: 0,
        startedAt: 100,
        endedAt: 100,
        attempts: [{ attempt: 1, outcome: 'succeeded', exitCode: 0, reason, memMb: 64, peakRssBytes: null, startedAt: 100, endedAt: 100 }],
        cacheKey: key.key,
        cacheParts: key.parts,
        cachedFrom: 'old-a',
        cacheLookup: 'hit',
        outputStamps: stamps,
      },
    });
    assert.deepEqual(rows.get('b'), { status: 'queued', reason: 'upstream jobs succeeded' });
    assert.deepEqual(rows.get('c'), { status: 'waiting', reason: 'waiting for upstream jobs' });
    assert.deepEqual(rows.get('d'), { status: 'queued', reason: 'ready' });
    assert.equal(rows.get('l')!.status, 'succeeded');
    assert.equal(rows.get('l')!.reason, '1 item(s) present');
    assert.equal(rows.get('l')!.ended!.cachedFrom, null);
  });

  describe('a task all of whose jobs end as they are created ends with its creation', () => {
    const succeeded: JobAtActivation = { status: 'succeeded', reason: 'from the call cache' };
    const queued: JobAtActivation = { status: 'queued', reason: 'ready' };
    const cases: Array<{ name: string; created: JobAtActivation[]; jobs: number; keeps: boolean; end: { reason: string } | undefined }> = [
      { name: 'every job a hit or a load done', created: [succeeded, succeeded, succeeded], jobs: 3, keeps: true, end: { reason: 'all 3 jobs succeeded' } },
      { name: 'a job left to the worker', created: [succeeded, queued], jobs: 2, keeps: true, end: undefined },
      { name: 'fewer decisions than jobs (the cache had nothing for some)', created: [succeeded], jobs: 2, keeps: true, end: undefined },
      { name: 'its intermediates to be removed (the worker does that)', created: [succeeded, succeeded], jobs: 2, keeps: false, end: undefined },
      { name: 'no jobs', created: [], jobs: 0, keeps: true, end: undefined },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const created = new Map(c.created.map((job, i) => [`j${i}`, job]));
        assert.deepEqual(taskEndAtActivation(created, c.jobs, c.keeps), c.end);
      });
    }
  });

  describe("whether a task will end as it is created, before its hits are placed (then they may share their sources' directories)", () => {
    const jobs = [loadJob('l'), toolJob('a', [{ data: '/in/r.fq' }]), toolJob('b', [{ job: 'a' }])];
    const cases: Array<{ name: string; hits: string[]; loads: string[]; keeps: boolean; ends: boolean }> = [
      { name: 'every tool job a hit, the load step done', hits: ['a', 'b'], loads: ['l'], keeps: true, ends: true },
      { name: 'a job left to the worker', hits: ['a'], loads: ['l'], keeps: true, ends: false },
      { name: 'the load step not done', hits: ['a', 'b'], loads: [], keeps: true, ends: false },
      { name: 'its intermediates to be removed', hits: ['a', 'b'], loads: ['l'], keeps: false, ends: false },
    ];
    for (const c of cases) {
      it(c.name, () => {
        assert.equal(endsAtActivation(jobs, { hits: new Set(c.hits), loads: new Set(c.loads) }, c.keeps), c.ends);
      });
    }
    it('not a task without jobs', () => assert.equal(endsAtActivation([], { hits: new Set(), loads: new Set() }, true), false));
  });
});
