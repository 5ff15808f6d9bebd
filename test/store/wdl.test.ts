import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import { AlreadyExists, VersionConflict, type Project, type Store } from '../../src/store/store.js';
import type { WdlContent } from '../../src/store/wdl.js';
import { BACKENDS } from './backends.js';

const content = (source: string, over: Partial<WdlContent> = {}): WdlContent => ({
  description: 'd',
  sourceName: 'main.wdl',
  source,
  dependenciesName: null,
  dependencies: null,
  inputs: { 'wf.x': 'Int' },
  ...over,
});

for (const backend of BACKENDS) {
  describe(`store contract, WDL: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let project: Project;

    before(async () => {
      ({ store, cleanup } = await backend.open());
      const account = await store.createAccount('wdl-contract');
      project = await store.createProject(account.id, 'default');
    });
    after(async () => cleanup());

    it('keeps versions with their documents byte for byte, and names unique per project and kind', async () => {
      const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0xff, 0x80, 10]);
      const first = await store.wdl.createWdlWorkflow(
        project.id,
        'workflow',
        'align',
        content('version 1.0\nworkflow wf {}\n', { dependencies: zip, dependenciesName: 'deps.zip' }),
      );
      assert.equal(first.version, 1);
      assert.equal(first.name, 'align');
      const files = await store.wdl.wdlVersionFiles(first.versionId);
      assert.equal(files?.source, 'version 1.0\nworkflow wf {}\n');
      assert.deepEqual(files?.dependencies, zip);
      assert.equal(files?.dependenciesName, 'deps.zip');
      assert.deepEqual(files?.inputs, { 'wf.x': 'Int' });
      await assert.rejects(store.wdl.createWdlWorkflow(project.id, 'workflow', 'align', content('x')), AlreadyExists);
      // A tool of the same name is another thing.
      const tool = await store.wdl.createWdlWorkflow(project.id, 'tool', 'align', content('task t {}'));
      assert.notEqual(tool.workflowId, first.workflowId);
      assert.deepEqual(
        (await store.wdl.listWdlVersions(project.id, 'tool')).map((v) => v.workflowId),
        [tool.workflowId],
      );
    });

    it('adds the next version or a named one, replaces one in place, renames, and undoes all of a change that fails', async () => {
      const v1 = await store.wdl.createWdlWorkflow(project.id, 'workflow', 'calls', content('one'));
      const v2 = await store.wdl.changeWdlWorkflow(v1.workflowId, { add: { version: 'next', content: content('two') } });
      assert.equal(v2?.version, 2);
      const v5 = await store.wdl.changeWdlWorkflow(v1.workflowId, { add: { version: 5, content: content('five') } });
      assert.equal(v5?.version, 5);
      await assert.rejects(
        store.wdl.changeWdlWorkflow(v1.workflowId, { add: { version: 2, content: content('again') } }),
        (e) => e instanceof VersionConflict && e.nextVersion === 6,
      );
      const replaced = await store.wdl.changeWdlWorkflow(v1.workflowId, { replace: { version: 2, content: { source: 'two, edited', description: 'new' } } });
      assert.equal(replaced?.description, 'new');
      assert.equal((await store.wdl.wdlVersionFiles(replaced.versionId))?.source, 'two, edited');
      // A rename with a replacement of a version that does not exist: nothing is written.
      assert.equal(await store.wdl.changeWdlWorkflow(v1.workflowId, { name: 'renamed', replace: { version: 9, content: { source: 'x' } } }), undefined);
      assert.equal((await store.wdl.wdlVersions(v1.workflowId))[0]?.name, 'calls');
      // A rename to a taken name is refused whole.
      await assert.rejects(store.wdl.changeWdlWorkflow(v1.workflowId, { name: 'align', add: { version: 'next', content: content('six') } }), AlreadyExists);
      assert.deepEqual(
        (await store.wdl.wdlVersions(v1.workflowId)).map((v) => v.version),
        [1, 2, 5],
      );
      await store.wdl.changeWdlWorkflow(v1.workflowId, { name: 'renamed', replace: { version: 1, content: {} } });
      assert.deepEqual(
        (await store.wdl.wdlVersionsByName(project.id, 'workflow', 'renamed')).map((v) => v.version),
        [1, 2, 5],
      );
      assert.equal(await store.wdl.changeWdlWorkflow(newId(), { add: { version: 'next', content: content('x') } }), undefined);
    });

    it('gives concurrent adders distinct versions', async () => {
      const v1 = await store.wdl.createWdlWorkflow(project.id, 'workflow', 'busy', content('one'));
      const added = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.wdl.changeWdlWorkflow(v1.workflowId, { add: { version: 'next', content: content(`v${i}`) } })),
      );
      assert.deepEqual(
        added.map((v) => v!.version).sort((a, b) => a - b),
        [2, 3, 4, 5, 6, 7],
      );
    });

    it('deletes versions, and the workflow with its last one', async () => {
      const v1 = await store.wdl.createWdlWorkflow(project.id, 'workflow', 'gone', content('one'));
      await store.wdl.changeWdlWorkflow(v1.workflowId, { add: { version: 'next', content: content('two') } });
      assert.equal(await store.wdl.deleteWdlVersion(v1.workflowId, 1), true);
      assert.equal(await store.wdl.deleteWdlVersion(v1.workflowId, 1), false);
      assert.equal(await store.wdl.deleteWdlVersion(v1.workflowId, 2 ** 40), false);
      assert.equal(await store.wdl.deleteWdlVersion(v1.workflowId, 2), true);
      assert.deepEqual(await store.wdl.wdlVersions(v1.workflowId), []);
      // The name is free again.
      assert.equal((await store.wdl.createWdlWorkflow(project.id, 'workflow', 'gone', content('new'))).version, 1);
    });

    it('records WDL tasks and lists the ones restarted from a task, newest first, until they are deleted', async () => {
      const wf = await store.wdl.createWdlWorkflow(project.id, 'workflow', 'runs', content('one'));
      const task = (name: string, createdAt: number) => ({
        id: newId(),
        projectId: project.id,
        name,
        workflowId: wf.workflowId,
        workflowName: 'runs',
        workflowVersion: 1,
        userName: 'u',
        status: 'queued' as const,
        reason: 'activated',
        parameters: {},
        plan: {},
        scheduleAt: null,
        stopRequested: false,
        createdAt,
      });
      const record = async (t: ReturnType<typeof task>, sourceId: string | null) => {
        await store.createTask(t, []);
        await store.wdl.recordWdlTask(t.id, project.id, t.createdAt, { workflowId: wf.workflowId, version: 1, sourceId, request: { inputs: { 'wf.x': 1 } } });
      };
      const source = task('source', 1_700_000_000);
      await record(source, null);
      const a = task('restart-a', 1_700_000_010);
      const b = task('restart-b', 1_700_000_020);
      await record(a, source.id);
      await record(b, source.id);
      // Recorded once: a second record changes nothing.
      await store.wdl.recordWdlTask(a.id, project.id, 1, { workflowId: wf.workflowId, version: 9, sourceId: null, request: {} });
      assert.deepEqual(await store.wdl.wdlTask(a.id), { workflowId: wf.workflowId, version: 1, sourceId: source.id, request: { inputs: { 'wf.x': 1 } } });
      assert.equal(await store.wdl.wdlTask(newId()), undefined);
      assert.deepEqual(await store.wdl.wdlSubTasks(project.id, source.id), [b.id, a.id]);
      await store.deleteTask(b.id);
      assert.deepEqual(await store.wdl.wdlSubTasks(project.id, source.id), [a.id]);
      assert.equal(await store.wdl.wdlTask(b.id), undefined);
    });
  });
}
