import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InUse, VersionConflict, type AuditEntry, type Project, type Store } from '../../src/store/store.js';
import { BACKENDS } from './backends.js';

/** The audit log (migrations 0005 and 0007) on every backend: entries commit with the writes they record, or not at all. */
for (const backend of BACKENDS) {
  describe(`store contract, audit log: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let project: Project;

    before(async () => {
      ({ store, cleanup } = await backend.open());
      const account = await store.createAccount('auditor');
      project = await store.createProject(account.id, 'default');
    });
    after(async () => cleanup());

    let requests = 0;
    const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
      requestId: `req${++requests}`,
      actorAccount: 'auditor',
      actorKeyId: 'GDKEY',
      actorUser: 'alice',
      account: 'auditor',
      operation: 'PutTool',
      target: 'auditor/default/t:1',
      outcome: 'ok',
      reason: '',
      clientAddress: '192.0.2.10',
      ...over,
    });
    const byRequest = async (requestId: string) => (await store.listAudit({ limit: 100_000 })).filter((e) => e.requestId === requestId);

    it('keeps what it is given, oldest first, with a time', async () => {
      const before = Date.now() / 1000 - 1;
      const first = entry({ reason: 'x'.repeat(5000) });
      // The operator's entry (gdflow admin) has no client address.
      const second = entry({
        actorAccount: null,
        actorKeyId: null,
        actorUser: 'root',
        account: 'other',
        operation: 'RevokeKey',
        target: 'GDX',
        outcome: 'NotFound',
        reason: 'no such key',
        clientAddress: null,
      });
      await store.recordAudit(first);
      await store.recordAudit(second);
      const all = await store.listAudit({});
      const [a, b] = all.slice(-2);
      assert.equal(a!.requestId, first.requestId);
      assert.equal(a!.reason.length, 1000, 'long reasons are cut');
      assert.equal(a!.clientAddress, '192.0.2.10');
      assert.ok(a!.at >= before && a!.at <= Date.now() / 1000 + 1);
      assert.ok(b!.id > a!.id);
      assert.deepEqual({ ...b, id: 0, at: 0 }, { ...second, id: 0, at: 0 });
    });

    it('filters by actor or subject account, by time, and keeps the newest when limited', async () => {
      await store.recordAudit(entry({ actorAccount: 'mallory', account: 'victim', outcome: 'AccessDenied' }));
      assert.deepEqual(
        (await store.listAudit({ account: 'mallory' })).map((e) => e.outcome),
        ['AccessDenied'],
      );
      assert.deepEqual(
        (await store.listAudit({ account: 'victim' })).map((e) => e.actorAccount),
        ['mallory'],
      );
      assert.deepEqual(await store.listAudit({ since: Date.now() / 1000 + 3600 }), []);
      const last = await store.listAudit({ limit: 2 });
      const all = await store.listAudit({});
      assert.deepEqual(
        last.map((e) => e.id),
        all.slice(-2).map((e) => e.id),
      );
    });

    it('commits an entry with its transaction, and drops it with one that rolls back', async () => {
      const kept = entry();
      const dropped = entry();
      await store.transaction((tx) => tx.recordAudit(kept));
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.recordAudit(dropped);
          throw new Error('refused after the entry was written');
        }),
        /refused after/,
      );
      assert.equal((await byRequest(kept.requestId)).length, 1);
      assert.equal((await byRequest(dropped.requestId)).length, 0);
    });

    it('records a write given its entry, naming the version a create took; a refused write leaves none', async () => {
      const created = entry({ operation: 'CreateTool', target: 'auditor/default/audited' });
      const tool = await store.createTool({ projectId: project.id, name: 'audited', description: '', visibility: 'private' }, created);
      assert.deepEqual(
        (await byRequest(created.requestId)).map((e) => e.target),
        [`auditor/default/audited:${tool.version}`],
      );

      const conflict = entry({ operation: 'CreateTool' });
      await assert.rejects(
        store.createTool({ projectId: project.id, name: 'audited', description: '', visibility: 'private', expectedVersion: 7 }, conflict),
        VersionConflict,
      );
      assert.deepEqual(await byRequest(conflict.requestId), []);

      const workflow = await store.createWorkflow({ projectId: project.id, name: 'pinning', description: '', visibility: 'private' });
      await store.putWorkflow(workflow.id, { configs: {}, status: 'checked', toolIds: [tool.id] }, entry({ operation: 'PutWorkflow' }));
      const pinned = entry({ operation: 'PutTool' });
      await assert.rejects(store.putTool(tool.id, { configs: {}, category: '', status: 'checked' }, { refuseIfPinned: true }, pinned), InUse);
      assert.deepEqual(await byRequest(pinned.requestId), []);

      const revoked = entry({ operation: 'RevokeKey' });
      const account = (await store.getAccount('auditor'))!;
      const key = await store.createAccessKey(
        { id: `GDAUDIT${backend.name}`, secret: 's', accountId: account.id, userName: 'u' },
        entry({ operation: 'CreateKey' }),
      );
      await store.revokeAccessKey(key.id, revoked);
      assert.equal((await byRequest(revoked.requestId)).length, 1);
    });
  });
}
