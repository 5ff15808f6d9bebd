import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AlreadyExists, InUse, VersionConflict, type Project, type Store } from '../../src/store/store.js';
import { BACKENDS } from './backends.js';

for (const backend of BACKENDS) {
  describe(`store contract: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let project: Project;

    before(async () => {
      ({ store, cleanup } = await backend.open());
      const account = await store.createAccount('contract');
      project = await store.createProject(account.id, 'default');
    });
    after(async () => cleanup());

    it('creates accounts, projects and keys, refusing duplicates', async () => {
      await assert.rejects(store.createAccount('contract'), AlreadyExists);
      const account = (await store.getAccount('contract'))!;
      await assert.rejects(store.createProject(account.id, 'default'), AlreadyExists);
      assert.equal((await store.getProject('contract', 'default'))!.id, project.id);
      assert.equal(await store.getProject('contract', 'nope'), undefined);
      const key = await store.createAccessKey({ id: 'GDKEY1', secret: 's3cret', accountId: account.id, userName: 'u1' });
      assert.equal(key.accountName, 'contract');
      assert.equal((await store.getAccessKey('GDKEY1'))!.status, 'active');
      assert.equal(await store.revokeAccessKey('GDKEY1'), true);
      assert.equal(await store.revokeAccessKey('GDKEY1'), false);
      assert.equal((await store.getAccessKey('GDKEY1'))!.status, 'revoked');
    });

    it('allocates tool versions 1, 2, 3 and checks an expected version', async () => {
      const base = { projectId: project.id, name: 'seq', description: 'd', visibility: 'private' as const };
      assert.equal((await store.createTool(base)).version, 1);
      assert.equal((await store.createTool({ ...base, expectedVersion: 2 })).version, 2);
      await assert.rejects(store.createTool({ ...base, expectedVersion: 9 }), (e: unknown) => e instanceof VersionConflict && e.nextVersion === 3);
      assert.equal((await store.createTool(base)).version, 3);
    });

    it('keeps versions unique and gap-free under concurrent creation', async () => {
      const base = { projectId: project.id, name: 'concurrent', description: '', visibility: 'private' as const };
      const created = await Promise.all(Array.from({ length: 30 }, () => store.createTool(base)));
      assert.deepEqual(created.map((t) => t.version).sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i + 1));
      const workflows = await Promise.all(Array.from({ length: 10 }, () => store.createWorkflow({ ...base, name: 'wfconcurrent' })));
      assert.deepEqual(workflows.map((w) => w.version).sort((a, b) => a - b), Array.from({ length: 10 }, (_, i) => i + 1));
    });

    it('stores a definition and reads it back byte for byte', async () => {
      const tool = await store.createTool({ projectId: project.id, name: 'defined', description: 'd', visibility: 'private' });
      const configs = { name: 'defined', cmd_template: 'echo "{{ x }}" ☃', inputs: { a: { formats: ['fq'] } }, n: 1.5 };
      await store.putTool(tool.id, { configs, category: 'cat', status: 'checked' });
      const read = (await store.getToolById(tool.id))!;
      assert.deepEqual(read.configs, configs);
      assert.equal(read.status, 'checked');
      assert.equal(read.category, 'cat');
      assert.equal(read.description, 'd');
      assert.ok(read.modifiedAt >= read.createdAt);
    });

    it('refuses to delete a tool version a workflow pins, and allows it once unpinned', async () => {
      const tool = await store.createTool({ projectId: project.id, name: 'pinned', description: '', visibility: 'private' });
      const workflow = await store.createWorkflow({ projectId: project.id, name: 'pinner', description: '', visibility: 'private' });
      await store.putWorkflow(workflow.id, { configs: { nodelist: [] }, status: 'checked', toolIds: [tool.id, tool.id] });
      assert.deepEqual(await store.workflowsUsingTool(tool.id), ['contract/default/pinner:1']);
      await assert.rejects(store.deleteTool(tool.id), (e: unknown) => e instanceof InUse && e.by[0] === 'contract/default/pinner:1');
      await store.deleteWorkflow(workflow.id);
      await store.deleteTool(tool.id);
      assert.equal(await store.getToolById(tool.id), undefined);
    });

    it('rolls back everything a failed transaction did', async () => {
      await assert.rejects(
        store.transaction(async (s) => {
          await s.createTool({ projectId: project.id, name: 'rolledback', description: '', visibility: 'private' });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.deepEqual(await store.getToolVersions(project.id, 'rolledback'), []);
    });

    it('lists tools and workflows ordered by name and version', async () => {
      const tools = await store.listTools(project.id);
      const keys = tools.map((t) => `${t.name}:${t.version}`);
      assert.deepEqual(keys, [...keys].sort((a, b) => {
        const [an, av] = a.split(':');
        const [bn, bv] = b.split(':');
        return an! < bn! ? -1 : an! > bn! ? 1 : Number(av) - Number(bv);
      }));
    });

    it('saves run templates and clears them when the configuration changes', async () => {
      const workflow = await store.createWorkflow({ projectId: project.id, name: 'templated', description: '', visibility: 'private' });
      await store.putWorkflow(workflow.id, { configs: { nodelist: [] }, status: 'checked', toolIds: [] });
      await store.setRunTemplate(workflow.id, { name: 'saved' });
      assert.deepEqual((await store.getWorkflowById(workflow.id))!.runTemplate, { name: 'saved' });
      await store.putWorkflow(workflow.id, { configs: { nodelist: [{ node_id: 'x' }] }, status: 'checked', toolIds: [] });
      assert.equal((await store.getWorkflowById(workflow.id))!.runTemplate, null);
    });
  });
}
