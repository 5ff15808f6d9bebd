import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Store } from '../../src/store/store.js';
import { until } from '../helpers/until.js';
import { BACKENDS, type OpenBackend } from './backends.js';

/**
 * Two stores with read caches on one database, as two API replicas: a write through one is seen by
 * the other's cached reads within the bound docs/api.md promises (1 s; 25 ms on SQLite, a few ms
 * through PostgreSQL's notifications and at most the 200 ms poll without them).
 */
const BOUND_MS = 1000;

/**
 * Read until `done` holds of the value; returns when (after the start) the read that saw it began. Not when its
 * answer came: on a loaded machine a read begun within the bound may answer after it, and that is no staleness.
 */
async function seenWithin<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<number> {
  const start = performance.now();
  for (;;) {
    const begun = performance.now() - start;
    if (done(await read())) return begun;
    if (performance.now() - start > 5 * BOUND_MS) assert.fail(`not seen after ${5 * BOUND_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

for (const backend of BACKENDS) {
  const variants: Array<{ name: string; listen: boolean }> =
    backend.name === 'postgres'
      ? [
          { name: 'notified', listen: true },
          { name: 'polling only', listen: false },
        ]
      : [{ name: 'data_version', listen: true }];
  for (const variant of variants) {
    describe(`read caches across stores: ${backend.name} (${variant.name})`, { skip: backend.skip }, () => {
      let opened: OpenBackend;
      let a: Store;
      let b: Store;

      before(async () => {
        opened = await backend.open();
        a = opened.store;
        b = await opened.another({ listen: variant.listen });
      });
      after(async () => opened.cleanup());

      const report = (t: TestContext, what: string, ms: number) => {
        t.diagnostic(`${what} seen by the other store after ${ms.toFixed(1)} ms`);
        assert.ok(ms <= BOUND_MS, `${what} took ${ms.toFixed(0)} ms to be seen, more than ${BOUND_MS} ms`);
      };

      it('sees a PutTool made through the other store', async (t) => {
        const account = await a.createAccount('coherent');
        const project = await a.createProject(account.id, 'default');
        const tool = await a.createTool({ projectId: project.id, name: 'cached', description: '', visibility: 'private' });
        const project2 = await seenWithin(
          () => b.getProject('coherent', 'default'),
          (p) => p !== undefined,
        );
        report(t, 'a new project', project2);

        // B reads and caches the tool: a second read is the same object, not a new query. (Once B has heard of A's
        // writes so far, which drops what it cached before: up to a poll, longer on a loaded machine than a fixed wait.)
        const before = await until(
          'B to answer a second read of the tool from its cache',
          async () => {
            const first = (await b.getTool(project.id, 'cached', 1))!;
            return (await b.getTool(project.id, 'cached', 1)) === first ? first : undefined;
          },
          5 * BOUND_MS,
        );
        assert.equal(before.configs, null);

        for (let round = 1; round <= 3; round++) {
          await a.putTool(tool.id, { configs: { round }, category: '', status: 'checked' });
          const ms = await seenWithin(
            () => b.getTool(project.id, 'cached', 1),
            (seen) => (seen?.configs as { round?: number } | null)?.round === round,
          );
          report(t, `PutTool ${round}`, ms);
          const listed = await seenWithin(
            () => b.listTools(project.id),
            (tools) => (tools[0]?.configs as { round?: number } | null)?.round === round,
          );
          assert.ok(listed <= BOUND_MS);
        }
      });

      it('refuses a key revoked through the other store', async (t) => {
        const account = (await a.getAccount('coherent'))!;
        const key = await a.createAccessKey({ id: `GDCOHERENT${variant.listen ? 'L' : 'P'}`, secret: 's', accountId: account.id, userName: 'u' });
        const active = await seenWithin(
          () => b.getAccessKey(key.id),
          (k) => k?.status === 'active',
        );
        assert.ok(active <= BOUND_MS);
        // What is cached is what was read (unless a notification of an earlier write has dropped it since).
        assert.notEqual(b.peekAccessKey?.(key.id)?.status, 'revoked');

        assert.equal(await a.revokeAccessKey(key.id), true);
        const ms = await seenWithin(
          () => b.getAccessKey(key.id),
          (k) => k?.status === 'revoked',
        );
        report(t, 'a revoked key', ms);
        // The server's check that does not wait (peek) no longer finds the key active either.
        assert.notEqual(b.peekAccessKey?.(key.id)?.status, 'active');
      });
    });
  }
}
