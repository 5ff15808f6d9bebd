import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Project, Store } from '../../src/store/store.js';
import { BACKENDS, type OpenBackend } from './backends.js';

/**
 * Numbers a request can carry that the columns cannot hold: both backends find nothing, where
 * PostgreSQL would otherwise refuse the query (and the request would fail with a 500).
 */
for (const backend of BACKENDS) {
  describe(`store ranges: ${backend.name}`, { skip: backend.skip }, () => {
    let opened: OpenBackend;
    let store: Store;
    let project: Project;

    before(async () => {
      opened = await backend.open();
      store = opened.store;
      const account = await store.createAccount('ranges');
      project = await store.createProject(account.id, 'default');
    });
    after(async () => opened.cleanup());

    it('finds no tool or workflow version beyond the integer range', async () => {
      await store.createTool({ projectId: project.id, name: 'ranged', description: '', visibility: 'private' });
      await store.createWorkflow({ projectId: project.id, name: 'ranged', description: '', visibility: 'private' });
      for (const version of [2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
        assert.equal(await store.getTool(project.id, 'ranged', version), undefined);
        assert.equal(await store.getWorkflow(project.id, 'ranged', version), undefined);
      }
      assert.equal((await store.getTool(project.id, 'ranged', 1))!.version, 1);
    });

    it('lists no tasks past a huge offset', async () => {
      for (const offset of [2 ** 53 - 1, 1e300]) {
        assert.deepEqual(await store.listTasks(project.id, { limit: 10, offset }), { tasks: [], total: 0, more: false });
      }
    });
  });
}
