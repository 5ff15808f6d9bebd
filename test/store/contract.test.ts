import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/ids.js';
import {
  AlreadyExists,
  InUse,
  VersionConflict,
  type DataProvenance,
  type Job,
  type JobStatus,
  type NewJob,
  type NewTask,
  type Project,
  type Store,
  type TaskEvent,
  type TaskRange,
  type TaskStatus,
} from '../../src/store/store.js';
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

    const nowSeconds = (): number => Date.now() / 1000;

    /** A task as the task service creates it; `over` replaces any field. */
    const taskInput = (name: string, over: Partial<NewTask> = {}): NewTask => ({
      id: newId(),
      projectId: project.id,
      name,
      workflowId: newId(),
      workflowName: 'wf',
      workflowVersion: 1,
      userName: 'u1',
      status: 'queued',
      reason: 'activated',
      parameters: {},
      plan: {},
      scheduleAt: null,
      stopRequested: false,
      createdAt: 1_700_000_000,
      ...over,
    });

    /** One job per node id, with ids `<task>.<node>` (unique across tasks). */
    const jobsFor = (taskId: string, nodes: string[], status: JobStatus = 'waiting'): NewJob[] =>
      nodes.map((nodeId, i) => ({
        id: `${taskId}.${nodeId}`,
        taskId,
        nodeId,
        name: `tool${i}`,
        status,
        reason: '',
        command: `run ${nodeId}`,
        spec: { deps: [], node: nodeId },
        attempt: 0,
        cpu: 1,
        memMb: 100,
      }));

    /** Events without their timestamps: [job id, from, to, reason]. */
    const transitions = (events: TaskEvent[]) => events.map((e) => [e.jobId, e.from, e.to, e.reason]);

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
      assert.deepEqual(
        created.map((t) => t.version).sort((a, b) => a - b),
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
      const workflows = await Promise.all(Array.from({ length: 10 }, () => store.createWorkflow({ ...base, name: 'wfconcurrent' })));
      assert.deepEqual(
        workflows.map((w) => w.version).sort((a, b) => a - b),
        Array.from({ length: 10 }, (_, i) => i + 1),
      );
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
      assert.deepEqual(
        keys,
        [...keys].sort((a, b) => {
          const [an, av] = a.split(':');
          const [bn, bv] = b.split(':');
          return an! < bn! ? -1 : an! > bn! ? 1 : Number(av) - Number(bv);
        }),
      );
    });

    it('saves run templates and clears them when the configuration changes', async () => {
      const workflow = await store.createWorkflow({ projectId: project.id, name: 'templated', description: '', visibility: 'private' });
      await store.putWorkflow(workflow.id, { configs: { nodelist: [] }, status: 'checked', toolIds: [] });
      await store.setRunTemplate(workflow.id, { name: 'saved' });
      assert.deepEqual((await store.getWorkflowById(workflow.id))!.runTemplate, { name: 'saved' });
      await store.putWorkflow(workflow.id, { configs: { nodelist: [{ node_id: 'x' }] }, status: 'checked', toolIds: [] });
      assert.equal((await store.getWorkflowById(workflow.id))!.runTemplate, null);
    });

    // ---- tasks and jobs -------------------------------------------------------------------------

    it('call cache: succeeded jobs by key (newest first, own account, not being deleted), keyed jobs of a tool, content hashes', async () => {
      const other = await store.createProject((await store.createAccount('contract_other')).id, 'default');
      const mine = taskInput('cachekeys');
      const theirs = taskInput('cachekeys', { projectId: other.id });
      const doomed = taskInput('cachedoomed');
      await store.createTask(mine, jobsFor(mine.id, ['a', 'b', 'c', 'd']));
      await store.createTask(theirs, jobsFor(theirs.id, ['a']));
      await store.createTask(doomed, jobsFor(doomed.id, ['a']));
      const parts = { v: 1, command: 'x' };
      const hashes = { 'outputs/out/x.txt': { sha256: 'f'.repeat(64), size: 3, mtimeMs: 1_700_000_000_123.5 } };
      const ended = (endedAt: number, status: JobStatus = 'succeeded') => ({
        status,
        endedAt,
        cacheKey: 'k1',
        cacheParts: parts,
        cacheLookup: 'miss' as const,
        outputStamps: hashes,
      });
      const attempts = [
        { attempt: 1, outcome: 'out_of_memory', exitCode: 137, reason: 'out of memory', memMb: 100, peakRssBytes: null, startedAt: 1, endedAt: 2 },
      ];
      await store.applyChanges({
        jobs: [
          { id: `${mine.id}.a`, taskId: mine.id, patch: ended(10) },
          { id: `${mine.id}.b`, taskId: mine.id, patch: { ...ended(20), attempts, memMb: 200 } },
          { id: `${mine.id}.c`, taskId: mine.id, patch: ended(30, 'failed') },
          { id: `${mine.id}.d`, taskId: mine.id, patch: { ...ended(40), cacheKey: 'k2', cachedFrom: `${mine.id}.a`, cacheLookup: 'hit' } },
          { id: `${theirs.id}.a`, taskId: theirs.id, patch: ended(50) },
          { id: `${doomed.id}.a`, taskId: doomed.id, patch: ended(60) },
        ],
      });
      await store.updateTask(doomed.id, { deleteRequested: true });
      const found = await store.findCachedJobs('contract', 'k1', 8);
      assert.deepEqual(
        found.map((j) => j.id),
        [`${mine.id}.b`, `${mine.id}.a`],
      );
      assert.deepEqual(found[0]!.attempts, attempts);
      assert.equal(found[0]!.memMb, 200);
      assert.deepEqual(found[0]!.cacheParts, parts);
      assert.deepEqual(found[0]!.outputStamps, hashes);
      assert.equal(found[0]!.cacheLookup, 'miss');
      assert.deepEqual(
        (await store.findCachedJobs('contract', 'k1', 1)).map((j) => j.id),
        [`${mine.id}.b`],
      );
      assert.deepEqual(await store.findCachedJobs('contract', 'nokey', 8), []);
      assert.deepEqual(
        (await store.findCachedJobs('contract_other', 'k1', 8)).map((j) => j.id),
        [`${theirs.id}.a`],
      );
      // Many keys in one query: the same jobs, newest first, at most limitPerKey of each key.
      const byKeys = await store.findCachedJobsByKeys('contract', ['k1', 'k2', 'nokey', 'k1'], 8);
      assert.deepEqual(
        byKeys.map((j) => j.id),
        [`${mine.id}.d`, `${mine.id}.b`, `${mine.id}.a`],
      );
      assert.deepEqual(byKeys[1]!.outputStamps, hashes);
      assert.deepEqual(
        (await store.findCachedJobsByKeys('contract', ['k1', 'k2'], 1)).map((j) => j.id),
        [`${mine.id}.d`, `${mine.id}.b`],
      );
      assert.deepEqual(await store.findCachedJobsByKeys('contract', [], 8), []);
      // newestTaskWhole: past the limit, the other jobs of the key's newest job's task are kept (k1: b is newest, a is in its task).
      assert.deepEqual(
        (await store.findCachedJobsByKeys('contract', ['k1', 'k2'], 1, { newestTaskWhole: true })).map((j) => j.id),
        [`${mine.id}.d`, `${mine.id}.b`, `${mine.id}.a`],
      );
      // A job created ended (a hit decided at activation) has its end written with its row, and its event.
      const rerun = taskInput('cachekeysrerun');
      const [planned] = jobsFor(rerun.id, ['a']);
      const end = { attempt: 1, exitCode: 0, startedAt: 70, endedAt: 70, attempts: [{ ...attempts[0]!, outcome: 'succeeded', exitCode: 0 }] };
      const cached = { cacheKey: 'k1', cacheParts: parts, cachedFrom: `${mine.id}.b`, cacheLookup: 'hit' as const, outputStamps: hashes };
      await store.createTask(rerun, [{ ...planned!, name: 'toolrerun', status: 'succeeded', reason: 'from the call cache', ended: { ...end, ...cached } }]);
      const created = (await store.getJob(`${rerun.id}.a`))!;
      assert.deepEqual(
        {
          status: created.status,
          attempt: created.attempt,
          exitCode: created.exitCode,
          startedAt: created.startedAt,
          endedAt: created.endedAt,
          attempts: created.attempts,
        },
        { status: 'succeeded', ...end },
      );
      assert.deepEqual(
        {
          cacheKey: created.cacheKey,
          cacheParts: created.cacheParts,
          cachedFrom: created.cachedFrom,
          cacheLookup: created.cacheLookup,
          outputStamps: created.outputStamps,
        },
        cached,
      );
      assert.deepEqual(
        (await store.taskEvents(rerun.id)).filter((e) => e.jobId !== null).map((e) => [e.jobId, e.from, e.to, e.reason]),
        [[`${rerun.id}.a`, null, 'succeeded', 'from the call cache']],
      );
      // The jobs of other tasks that reuse a job of this one (what a DELETE hands the logs over to).
      assert.deepEqual(await store.jobsReusing(mine.id), [{ id: `${rerun.id}.a`, taskId: rerun.id, nodeId: 'a', cachedFrom: `${mine.id}.b` }]);
      assert.deepEqual(await store.jobsReusing(rerun.id), []);
      const hit = (await store.getJob(`${mine.id}.d`))!;
      assert.equal(hit.cachedFrom, `${mine.id}.a`);
      // tool0 is node a's tool: jobsFor names tools by position.
      assert.deepEqual(
        (await store.keyedJobsOfTool('contract', 'tool2', 10)).map((j) => j.id),
        [`${mine.id}.c`],
      );
      assert.deepEqual(
        (await store.keyedJobsOfTool('contract', 'tool0', 10)).map((j) => j.id),
        [`${mine.id}.a`],
      );

      assert.equal(await store.getContentHash('contract', '/in/a.fq'), undefined);
      const hash = { sha256: 'a'.repeat(64), size: 5_000_000_000, mtimeMs: 1_700_000_000_000.25 };
      await store.putContentHash('contract', '/in/a.fq', hash);
      assert.deepEqual(await store.getContentHash('contract', '/in/a.fq'), hash);
      const changed = { sha256: 'b'.repeat(64), size: 6, mtimeMs: 1_700_000_001_000 };
      await store.putContentHash('contract', '/in/a.fq', changed);
      assert.deepEqual(await store.getContentHash('contract', '/in/a.fq'), changed);
      assert.equal(await store.getContentHash('contract_other', '/in/a.fq'), undefined);
      // A task created ended (every job a hit): succeeded with its start and end, and both transitions as events.
      const whole = taskInput('cachekeyswhole');
      const [wholeJob] = jobsFor(whole.id, ['a']);
      await store.createTask({ ...whole, ended: { reason: 'all 1 jobs succeeded', at: 80 } }, [
        { ...wholeJob!, status: 'succeeded', reason: 'from the call cache', ended: { ...end, ...cached } },
      ]);
      const wholeTask = (await store.getTask(whole.id))!;
      assert.deepEqual([wholeTask.status, wholeTask.reason, wholeTask.startedAt, wholeTask.endedAt], ['succeeded', 'all 1 jobs succeeded', 80, 80]);
      assert.deepEqual(
        (await store.taskEvents(whole.id)).filter((e) => e.jobId === null).map((e) => [e.from, e.to, e.reason]),
        [
          [null, whole.status, whole.reason],
          [whole.status, 'succeeded', 'all 1 jobs succeeded'],
        ],
      );
    });

    it('creates a task with its jobs and reads both back, refusing a duplicate name in the project', async () => {
      const t0 = nowSeconds();
      const input = taskInput('created', {
        status: 'scheduled',
        reason: 'waiting for later',
        parameters: { name: 'created', nested: { list: [1, 'two', null], text: 'é ☃' } },
        plan: { jobs: ['a', 'b'], workflow_owner: 'contract/default' },
        scheduleAt: 1_700_000_500.5,
        createdAt: 1_700_000_000.25,
      });
      const jobs = jobsFor(input.id, ['a', 'b']);
      await store.createTask(input, jobs);
      const t1 = nowSeconds();
      const created = (await store.getTask(input.id))!;
      const { modifiedAt, ...rest } = created;
      assert.deepEqual(rest, {
        ...input,
        accountName: 'contract',
        projectName: 'default',
        startedAt: null,
        endedAt: null,
        deleteRequested: false,
        heldBy: null,
      });
      assert.ok(modifiedAt >= t0 && modifiedAt <= t1, `modifiedAt ${modifiedAt} not in [${t0}, ${t1}]`);
      assert.deepEqual(await store.getTask(input.id), created);
      assert.equal(await store.getTask(newId()), undefined);

      const listed = await store.listJobs(input.id);
      assert.deepEqual(
        listed.map(({ modifiedAt: _m, ...job }) => job).sort((x, y) => (x.id < y.id ? -1 : 1)),
        jobs.map((job) => ({
          ...job,
          exitCode: null,
          externalId: null,
          imageDigest: null,
          startedAt: null,
          endedAt: null,
          attempts: [],
          cacheKey: null,
          cacheParts: null,
          cachedFrom: null,
          cacheLookup: null,
          outputStamps: null,
          outputs: null,
        })),
      );
      for (const job of listed) {
        assert.ok(job.modifiedAt >= t0 && job.modifiedAt <= t1);
        assert.deepEqual(await store.getJob(job.id), job);
      }
      assert.equal(await store.getJob(`${input.id}.nope`), undefined);
      assert.deepEqual(await store.listJobs(newId()), []);

      // Creation is the first event: from nothing to the initial status.
      const events = await store.taskEvents(input.id);
      assert.deepEqual(transitions(events), [[null, null, 'scheduled', 'waiting for later']]);
      assert.equal(events[0]!.taskId, input.id);
      assert.ok(events[0]!.at >= t0 && events[0]!.at <= t1);

      // A duplicate name fails as a whole: neither the task nor any of its jobs is stored.
      const duplicate = taskInput('created');
      await assert.rejects(store.createTask(duplicate, jobsFor(duplicate.id, ['x'])), (e: unknown) => e instanceof AlreadyExists && e.key === 'name');
      assert.equal(await store.getTask(duplicate.id), undefined);
      // A taken id (the service then draws another) is told apart from a taken name.
      await assert.rejects(store.createTask(taskInput('created-again', { id: input.id }), []), (e: unknown) => e instanceof AlreadyExists && e.key === 'id');
      assert.equal((await store.listTasks(project.id, { limit: 10, nameContains: 'created-again' })).total, 0);
      assert.equal(await store.getJob(`${duplicate.id}.x`), undefined);
      assert.deepEqual(await store.taskEvents(duplicate.id), []);
      assert.deepEqual(await store.getTask(input.id), created);

      // The same name is free in another project.
      const other = await store.createProject(project.accountId, 'created-elsewhere');
      const elsewhereInput = taskInput('created', { projectId: other.id });
      await store.createTask(elsewhereInput, []);
      const elsewhere = (await store.getTask(elsewhereInput.id))!;
      assert.equal(elsewhere.projectName, 'created-elsewhere');
      assert.equal(elsewhere.name, 'created');
    });

    it('creates a task with many jobs at once', async () => {
      const input = taskInput('many-jobs');
      const nodes = Array.from({ length: 120 }, (_, i) => `n${String(i).padStart(3, '0')}`);
      await store.createTask(input, jobsFor(input.id, nodes));
      assert.deepEqual((await store.listJobs(input.id)).map((j) => j.nodeId).sort(), nodes);
      assert.deepEqual((await store.jobStatusCounts([input.id])).get(input.id), { waiting: 120 });
    });

    it('updates a job, with and without an expected status', async () => {
      const input = taskInput('update-job', { status: 'running' });
      await store.createTask(input, jobsFor(input.id, ['a', 'b']));
      const a = `${input.id}.a`;
      const b = `${input.id}.b`;

      const t0 = nowSeconds();
      assert.equal(await store.updateJob(a, { status: 'queued', reason: 'ready' }), true);
      const queued = (await store.getJob(a))!;
      assert.equal(queued.status, 'queued');
      assert.equal(queued.reason, 'ready');
      assert.ok(queued.modifiedAt >= t0);

      // Not in an expected state: false, and nothing changes (not even modifiedAt), no event.
      assert.equal(await store.updateJob(a, { status: 'running', reason: 'no' }, ['waiting', 'running']), false);
      assert.deepEqual(await store.getJob(a), queued);

      assert.equal(
        await store.updateJob(a, { status: 'running', startedAt: 1_700_000_010, attempt: 1, command: 'run a --again' }, ['waiting', 'queued']),
        true,
      );
      // No status in the patch: the fields change, no event is written.
      assert.equal(await store.updateJob(a, { exitCode: 137, endedAt: 1_700_000_020 }), true);
      // The same status again is no transition either.
      assert.equal(await store.updateJob(a, { status: 'running', reason: 'still running' }, ['running']), true);
      assert.equal(await store.updateJob(a, { status: 'failed', reason: 'exit 137' }, ['running']), true);
      assert.equal(await store.updateJob(`${input.id}.missing`, { status: 'failed' }), false);
      assert.equal(await store.updateJob(`${input.id}.missing`, { status: 'failed' }, ['waiting']), false);

      const job = (await store.getJob(a))!;
      assert.deepEqual(
        {
          status: job.status,
          reason: job.reason,
          attempt: job.attempt,
          command: job.command,
          exitCode: job.exitCode,
          startedAt: job.startedAt,
          endedAt: job.endedAt,
        },
        { status: 'failed', reason: 'exit 137', attempt: 1, command: 'run a --again', exitCode: 137, startedAt: 1_700_000_010, endedAt: 1_700_000_020 },
      );
      assert.equal((await store.getJob(b))!.status, 'waiting');
      assert.deepEqual(transitions(await store.taskEvents(input.id)), [
        [null, null, 'running', 'activated'],
        [a, 'waiting', 'queued', 'ready'],
        [a, 'queued', 'running', ''],
        [a, 'running', 'failed', 'exit 137'],
      ]);
      // The task itself is untouched by job updates.
      assert.equal((await store.getTask(input.id))!.status, 'running');
    });

    it('updates a task, with and without an expected status', async () => {
      const input = taskInput('update-task');
      await store.createTask(input, []);
      assert.equal(
        await store.updateTask(input.id, { status: 'running', reason: 'first job started', startedAt: 1_700_000_030 }, ['queued', 'scheduled']),
        true,
      );
      const running = (await store.getTask(input.id))!;
      assert.equal(await store.updateTask(input.id, { status: 'stopped', reason: 'no' }, ['queued', 'scheduled']), false);
      assert.deepEqual(await store.getTask(input.id), running);
      assert.equal(await store.updateTask(input.id, { stopRequested: true }), true);
      assert.equal(await store.updateTask(input.id, { status: 'stopping', reason: 'stop requested' }, ['running']), true);
      assert.equal(await store.updateTask(input.id, { status: 'stopped', reason: 'stopped', endedAt: 1_700_000_040 }), true);
      assert.equal(await store.updateTask(newId(), { status: 'failed' }), false);

      const task = (await store.getTask(input.id))!;
      assert.deepEqual(
        { status: task.status, reason: task.reason, stopRequested: task.stopRequested, startedAt: task.startedAt, endedAt: task.endedAt },
        { status: 'stopped', reason: 'stopped', stopRequested: true, startedAt: 1_700_000_030, endedAt: 1_700_000_040 },
      );
      assert.deepEqual(transitions(await store.taskEvents(input.id)), [
        [null, null, 'queued', 'activated'],
        [null, 'queued', 'running', 'first job started'],
        [null, 'running', 'stopping', 'stop requested'],
        [null, 'stopping', 'stopped', 'stopped'],
      ]);
    });

    for (const relaxed of [false, true]) {
      it(`applies many job and task changes in one call (relaxed: ${relaxed})`, { timeout: 10_000 }, async () => {
        const task = taskInput(`apply-${relaxed}`);
        const other = taskInput(`apply-other-${relaxed}`);
        await store.createTask(task, jobsFor(task.id, ['a', 'b', 'c']));
        await store.createTask(other, []);
        const [a, b, c] = ['a', 'b', 'c'].map((n) => `${task.id}.${n}`) as [string, string, string];
        const cBefore = (await store.getJob(c))!;
        const otherBefore = (await store.getTask(other.id))!;

        const t0 = nowSeconds();
        await store.applyChanges({
          ...(relaxed ? { relaxed } : {}),
          jobs: [
            { id: a, taskId: task.id, patch: { status: 'queued', reason: 'ready' } },
            { id: b, taskId: task.id, patch: { status: 'running', startedAt: 1_700_000_050 }, expect: ['waiting'] },
            // c is waiting, not queued: left alone.
            { id: c, taskId: task.id, patch: { status: 'running', reason: 'wrong' }, expect: ['queued'] },
            // Sees the change made earlier in the same call.
            { id: a, taskId: task.id, patch: { status: 'running', reason: 'started', startedAt: 1_700_000_060 }, expect: ['queued'] },
            // Same status: the other fields change, no event.
            { id: b, taskId: task.id, patch: { status: 'running', reason: 'still running', attempt: 2, command: 'run b again' } },
            { id: `${task.id}.missing`, taskId: task.id, patch: { status: 'failed' } },
          ],
          tasks: [
            { id: task.id, patch: { status: 'running', reason: 'first job started', startedAt: 1_700_000_100 }, expect: ['queued'] },
            // other is queued, not running: left alone.
            { id: other.id, patch: { status: 'failed', reason: 'wrong' }, expect: ['running'] },
            { id: task.id, patch: { stopRequested: true } },
            { id: task.id, patch: { status: 'stopping', reason: 'stop requested' }, expect: ['running'] },
          ],
        });
        const t1 = nowSeconds();

        const jobA = (await store.getJob(a))!;
        const jobB = (await store.getJob(b))!;
        assert.deepEqual([jobA.status, jobA.reason, jobA.startedAt, jobA.attempt, jobA.command], ['running', 'started', 1_700_000_060, 0, 'run a']);
        assert.deepEqual([jobB.status, jobB.reason, jobB.startedAt, jobB.attempt, jobB.command], ['running', 'still running', 1_700_000_050, 2, 'run b again']);
        assert.ok(jobA.modifiedAt >= t0 && jobA.modifiedAt <= t1);
        assert.deepEqual(await store.getJob(c), cBefore);
        assert.deepEqual(await store.getTask(other.id), otherBefore);
        const after = (await store.getTask(task.id))!;
        assert.deepEqual([after.status, after.reason, after.startedAt, after.stopRequested], ['stopping', 'stop requested', 1_700_000_100, true]);

        // One event per status change, in the order the changes were made (jobs and tasks each).
        const events = await store.taskEvents(task.id);
        assert.equal(events.length, 6);
        assert.deepEqual(transitions(events.filter((e) => e.jobId !== null)), [
          [a, 'waiting', 'queued', 'ready'],
          [b, 'waiting', 'running', ''],
          [a, 'queued', 'running', 'started'],
        ]);
        assert.deepEqual(transitions(events.filter((e) => e.jobId === null)), [
          [null, null, 'queued', 'activated'],
          [null, 'queued', 'running', 'first job started'],
          [null, 'running', 'stopping', 'stop requested'],
        ]);
        for (const event of events.slice(1)) assert.ok(event.taskId === task.id && event.at >= t0 && event.at <= t1);
        assert.deepEqual(transitions(await store.taskEvents(other.id)), [[null, null, 'queued', 'activated']]);
        assert.deepEqual((await store.jobStatusCounts([task.id])).get(task.id), { running: 2, waiting: 1 });

        // Nothing to do is fine.
        await store.applyChanges({ ...(relaxed ? { relaxed } : {}) });
        await store.applyChanges({ ...(relaxed ? { relaxed } : {}), jobs: [], tasks: [] });
        assert.equal((await store.taskEvents(task.id)).length, 6);
      });
    }

    for (const relaxed of [false, true]) {
      it(`applies all the changes of a call or none of them (relaxed: ${relaxed})`, { timeout: 10_000 }, async () => {
        const input = taskInput(`apply-atomic-${relaxed}`);
        await store.createTask(input, jobsFor(input.id, ['a', 'b']));
        const [a, b] = [`${input.id}.a`, `${input.id}.b`];
        const before = await store.listJobs(input.id);
        // The second job's change breaks a NOT NULL column: the first one must not stay either.
        await assert.rejects(
          store.applyChanges({
            ...(relaxed ? { relaxed } : {}),
            jobs: [
              { id: a, taskId: input.id, patch: { status: 'queued', reason: 'ready' } },
              { id: b, taskId: input.id, patch: { status: null as unknown as JobStatus } },
            ],
            tasks: [{ id: input.id, patch: { status: 'running' } }],
          }),
        );
        assert.deepEqual(await store.listJobs(input.id), before);
        assert.equal((await store.getTask(input.id))!.status, 'queued');
        assert.equal((await store.taskEvents(input.id)).length, 1);
        // The store works on, relaxed and durable.
        await store.applyChanges({ relaxed: true, jobs: [{ id: a, taskId: input.id, patch: { status: 'queued' } }] });
        assert.equal(await store.updateJob(b, { status: 'queued' }, ['waiting']), true);
        assert.deepEqual((await store.jobStatusCounts([input.id])).get(input.id), { queued: 2 });
      });
    }

    it('commits or rolls back relaxed changes with the transaction they are made in', { timeout: 10_000 }, async () => {
      const input = taskInput('relaxed-in-transaction');
      await store.createTask(input, jobsFor(input.id, ['a']));
      const a = `${input.id}.a`;
      await assert.rejects(
        store.transaction(async (s) => {
          await s.applyChanges({
            relaxed: true,
            jobs: [{ id: a, taskId: input.id, patch: { status: 'queued' } }],
            tasks: [{ id: input.id, patch: { status: 'running' } }],
          });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal((await store.getJob(a))!.status, 'waiting');
      assert.equal((await store.getTask(input.id))!.status, 'queued');
      assert.equal((await store.taskEvents(input.id)).length, 1);
      await store.transaction(async (s) => {
        await s.applyChanges({ relaxed: true, jobs: [{ id: a, taskId: input.id, patch: { status: 'queued' } }] });
        await s.updateTask(input.id, { status: 'running' });
      });
      assert.equal((await store.getJob(a))!.status, 'queued');
      assert.equal((await store.getTask(input.id))!.status, 'running');
      assert.equal((await store.taskEvents(input.id)).length, 3);
    });

    it('counts the jobs of each task by status', async () => {
      const x = taskInput('counts-x', { status: 'running' });
      const y = taskInput('counts-y');
      const xJobs = jobsFor(x.id, ['a', 'b', 'c', 'd', 'e']);
      await store.createTask(x, xJobs);
      await store.createTask(y, jobsFor(y.id, ['a', 'b'], 'queued'));
      const patch = (job: NewJob, status: JobStatus) => ({ id: job.id, taskId: job.taskId, patch: { status } });
      await store.applyChanges({ jobs: [patch(xJobs[0]!, 'running'), patch(xJobs[1]!, 'running'), patch(xJobs[2]!, 'succeeded')] });
      const missing = newId();
      assert.deepEqual(
        await store.jobStatusCounts([x.id, y.id, missing]),
        new Map<string, Partial<Record<JobStatus, number>>>([
          [x.id, { running: 2, succeeded: 1, waiting: 2 }],
          [y.id, { queued: 2 }],
          [missing, {}],
        ]),
      );
      assert.deepEqual(await store.jobStatusCounts([y.id]), new Map([[y.id, { queued: 2 }]]));
      assert.equal((await store.jobStatusCounts([])).size, 0);
    });

    describe('leases', () => {
      // Each case works in a project of its own, so that what other cases left claimable does not interfere:
      // claims are global, so the cases run with tasks created far in the past (claimed first, oldest first).
      let sequence = 0;
      const claimable = async (name: string, over: Partial<NewTask> = {}, nodes: string[] = ['a']) => {
        const input = taskInput(`lease-${name}`, { createdAt: 1_000_000_000 + sequence++, ...over });
        await store.createTask(input, jobsFor(input.id, nodes, 'queued'));
        return input.id;
      };
      /** Claims until nothing is left (other cases' tasks too: they are held for an hour); returns what was claimed. */
      const claimAll = async (owner: string, ttl = 3600) => {
        const claimed: string[] = [];
        for (;;) {
          const batch = await store.claimTasks(owner, 50, ttl);
          if (batch.length === 0) return claimed;
          claimed.push(...batch.map((t) => t.id));
        }
      };

      it('hands each unfinished, due, unowned task to one worker, oldest first', async () => {
        const old = await claimable('old');
        const young = await claimable('young');
        const later = await claimable('later', { status: 'scheduled', scheduleAt: Date.now() / 1000 + 3600 });
        const due = await claimable('due', { status: 'scheduled', scheduleAt: 1_000 });
        const done = await claimable('done', { status: 'succeeded' });
        const first = await store.claimTasks('w1', 1, 3600);
        assert.equal(first.length, 1);
        const rest = await claimAll('w1');
        const mine = [...first.map((t) => t.id), ...rest].filter((id) => [old, young, later, due, done].includes(id));
        assert.deepEqual(mine, [old, young, due], 'oldest first; not before their start time; never finished ones');
        assert.equal(first[0]!.heldBy, 'w1');
        assert.equal((await store.getTask(old))!.heldBy, 'w1');
        const ours = (ids: string[]) => ids.filter((id) => [old, young, later, due, done].includes(id));
        assert.deepEqual(ours(await claimAll('w2')), [], 'a held task is not handed to another worker');
        await store.releaseTasks('w1', [young]);
        assert.equal((await store.getTask(young))!.heldBy, null);
        assert.deepEqual(ours(await claimAll('w2')), [young]);
        await store.releaseTasks('w1', [old, due]);
        await store.releaseTasks('w2', [young]);
      });

      it('lets another worker take a task over once its lease has expired, and only then', async () => {
        const id = await claimable('expiring');
        // A lease of an hour, put in the past afterwards (a last heartbeat with a negative time): a lease of a
        // fraction of a second could run out on a loaded machine before the heir's first try.
        await claimAll('dying', 3600);
        assert.equal((await store.getTask(id))!.heldBy, 'dying');
        assert.deepEqual(
          (await claimAll('heir')).filter((x) => x === id),
          [],
        );
        assert.ok((await store.renewLeases('dying', -1)).includes(id));
        assert.equal((await store.getTask(id))!.heldBy, null, 'an expired lease holds nothing');
        assert.deepEqual(
          (await claimAll('heir')).filter((x) => x === id),
          [id],
        );
        assert.deepEqual(await store.renewLeases('dying', 30), [], 'the old owner cannot renew what was taken over');
        assert.ok((await store.renewLeases('heir', 30)).includes(id));
        await store.releaseTasks('heir', [id]);
      });

      it('renews leases by heartbeat, so that they do not expire while held', async () => {
        const id = await claimable('renewed');
        await claimAll('beating', 0.5);
        // Beats 200 ms apart, well past the first half-second lease; each renews for a minute, so that the check
        // below does not race a lease of a fraction of a second on a loaded machine.
        for (let i = 0; i < 4; i++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          assert.ok((await store.renewLeases('beating', 60)).includes(id));
        }
        assert.deepEqual(
          (await claimAll('other')).filter((x) => x === id),
          [],
        );
        await store.releaseTasks('beating', [id]);
      });

      it('writes the changes of held tasks only, and reports the others as lost', async () => {
        const held = await claimable('held', {}, ['a', 'b']);
        const taken = await claimable('taken', {}, ['a']);
        await claimAll('owner');
        await store.releaseTasks('owner', [taken]);
        await claimAll('thief');
        const applied = await store.applyChanges({
          owner: 'owner',
          jobs: [
            { id: `${held}.a`, taskId: held, patch: { status: 'running', reason: 'started' }, expect: ['queued'] },
            { id: `${taken}.a`, taskId: taken, patch: { status: 'running', reason: 'started' }, expect: ['queued'] },
          ],
          tasks: [
            { id: held, patch: { status: 'running', reason: 'first job started' } },
            { id: taken, patch: { status: 'running', reason: 'first job started' } },
          ],
        });
        assert.deepEqual(applied.lost, [taken]);
        assert.equal((await store.getJob(`${held}.a`))!.status, 'running');
        assert.equal((await store.getTask(held))!.status, 'running');
        assert.equal((await store.getJob(`${taken}.a`))!.status, 'queued', 'nothing of a lost task is written');
        assert.equal((await store.getTask(taken))!.status, 'queued');
        // Release with the last changes: the task is claimable again at once.
        const done = await store.applyChanges({ owner: 'owner', tasks: [{ id: held, patch: { status: 'succeeded' } }], release: [held] });
        assert.deepEqual(done.lost, []);
        assert.equal((await store.getTask(held))!.heldBy, null);
        assert.equal(await store.deleteTask(taken, 'owner'), false, 'an owner deletes only what it holds');
        assert.equal(await store.deleteTask(taken, 'thief'), true);
        assert.equal(await store.getTask(taken), undefined);
      });

      it('adds jobs to held tasks at run time and patches their spec, cpu and outputs in the same write (held tasks only)', async () => {
        const held = await claimable('grows', {}, ['root']);
        const lost = await claimable('grows-lost', {}, ['root']);
        await claimAll('grower');
        await store.releaseTasks('grower', [lost]);
        await claimAll('other-grower');
        const added = (taskId: string, nodes: string[]) => jobsFor(taskId, nodes, 'queued');
        const outputs = { out: { class: 'File', location: 'file:///data/x.txt', size: 3 }, n: [1, null] };
        const applied = await store.applyChanges({
          owner: 'grower',
          newJobs: [...added(held, ['c1', 'c2']), ...added(lost, ['c1'])],
          jobs: [
            { id: `${held}.root`, taskId: held, patch: { status: 'running', reason: 'expanded', spec: { deps: [], node: 'root', children: 2 }, cpu: 3 } },
            { id: `${held}.c1`, taskId: held, patch: { status: 'running', reason: 'started' } },
            { id: `${held}.c1`, taskId: held, patch: { status: 'succeeded', reason: 'done', outputs } },
          ],
        });
        assert.deepEqual(applied.lost, [lost]);
        const jobs = new Map((await store.listJobs(held)).map((j) => [j.nodeId, j]));
        assert.deepEqual([...jobs.keys()].sort(), ['c1', 'c2', 'root']);
        assert.equal(jobs.get('c2')!.status, 'queued');
        assert.equal(jobs.get('c2')!.outputs, null);
        assert.deepEqual(jobs.get('c1')!.outputs, outputs);
        assert.equal(jobs.get('c1')!.status, 'succeeded');
        assert.deepEqual(jobs.get('root')!.spec, { deps: [], node: 'root', children: 2 });
        assert.equal(jobs.get('root')!.cpu, 3);
        assert.deepEqual(
          transitions(await store.taskEvents(held)).filter(([job]) => job === `${held}.c1`),
          [
            [`${held}.c1`, 'queued', 'running', 'started'],
            [`${held}.c1`, 'running', 'succeeded', 'done'],
          ],
        );
        assert.deepEqual(
          (await store.listJobs(lost)).map((j) => j.nodeId),
          ['root'],
          'nothing is added to a lost task',
        );
      });

      it('records the provenance of stored items with their task (held tasks only), replaced by a later store, with the task status now', async () => {
        const first = await claimable('prov-first', {}, ['work', 'save']);
        const second = await claimable('prov-second', {}, ['work', 'save']);
        const lost = await claimable('prov-lost', {}, ['save']);
        await claimAll('storer');
        await store.releaseTasks('storer', [lost]);
        await claimAll('other-storer');
        const item = (taskId: string, path: string, over: Partial<DataProvenance> = {}): DataProvenance => ({
          account: 'contract',
          path,
          taskId,
          taskName: `name-of-${taskId}`,
          jobId: `${taskId}.work`,
          nodeId: 'work',
          storeJobId: `${taskId}.save`,
          storeNodeId: 'save',
          size: 12,
          mtimeMs: 1_700_000_000_123.457,
          storedAt: 1_700_000_001.5,
          ...over,
        });
        const applied = await store.applyChanges({
          owner: 'storer',
          jobs: [{ id: `${first}.save`, taskId: first, patch: { status: 'succeeded', reason: 'stored' } }],
          stored: [item(first, '/out/a.txt'), item(first, '/out/b.txt', { jobId: null, nodeId: null, size: 2 ** 40 }), item(lost, '/out/lost.txt')],
        });
        assert.deepEqual(applied.lost, [lost]);
        const byPath = async (paths: string[]) => new Map((await store.getProvenance('contract', paths)).map((p) => [p.path, p]));
        let rows = await byPath(['/out/a.txt', '/out/b.txt', '/out/lost.txt', '/out/none.txt']);
        assert.deepEqual([...rows.keys()].sort(), ['/out/a.txt', '/out/b.txt'], 'nothing of a task the writer does not hold');
        assert.deepEqual(rows.get('/out/a.txt'), { ...item(first, '/out/a.txt'), taskStatus: 'queued' }, 'read back exactly, with the task status now');
        assert.equal(rows.get('/out/b.txt')!.size, 2 ** 40, 'sizes beyond 32 bits');
        assert.equal(rows.get('/out/b.txt')!.jobId, null);
        assert.deepEqual(await store.getProvenance('elsewhere', ['/out/a.txt']), [], 'by account');
        // A later task stores to the same name: its row replaces the first one's.
        const failed = [{ id: second, patch: { status: 'failed' as const, reason: 'x' } }];
        await store.applyChanges({ owner: 'storer', stored: [item(second, '/out/a.txt', { size: 99 })], tasks: failed });
        rows = await byPath(['/out/a.txt']);
        assert.equal(rows.get('/out/a.txt')!.taskId, second);
        assert.equal(rows.get('/out/a.txt')!.size, 99);
        assert.equal(rows.get('/out/a.txt')!.taskStatus, 'failed');
        // The item outlives its task: the row stays, without a task status.
        await store.releaseTasks('storer', [first, second]);
        await store.deleteTask(second);
        rows = await byPath(['/out/a.txt', '/out/b.txt']);
        assert.equal(rows.get('/out/a.txt')!.taskStatus, null, 'a deleted task has no status');
        assert.equal(rows.get('/out/a.txt')!.taskName, `name-of-${second}`, 'but its name is kept');
        // Many names at once.
        const many = Array.from({ length: 1200 }, (_, i) => `/many/${i}.txt`);
        await store.applyChanges({ stored: many.map((path) => item(first, path)) });
        assert.equal((await store.getProvenance('contract', [...many, ...many])).length, 1200);
      });

      it('tells an owner which of its tasks were asked to stop or be deleted', async () => {
        const [a, b, c] = [await claimable('flag-a'), await claimable('flag-b'), await claimable('flag-c')];
        await claimAll('flagged');
        assert.deepEqual(await store.requestedTasks('flagged'), []);
        await store.updateTask(a, { stopRequested: true });
        await store.updateTask(c, { deleteRequested: true });
        const flags = (await store.requestedTasks('flagged')).sort((x, y) => (x.id < y.id ? -1 : 1));
        const expected = [
          { id: a, stopRequested: true, deleteRequested: false },
          { id: c, stopRequested: false, deleteRequested: true },
        ].sort((x, y) => (x.id < y.id ? -1 : 1));
        assert.deepEqual(flags, expected);
        assert.equal((await store.getTask(c))!.deleteRequested, true);
        await store.releaseTasks('flagged', [a, b, c]);
      });

      it('never hands one task to two workers claiming at once', { timeout: 30_000 }, async () => {
        const ids = new Set<string>();
        for (let i = 0; i < 40; i++) ids.add(await claimable(`race-${i}`));
        const owners = ['r1', 'r2', 'r3', 'r4'];
        const results = await Promise.all(owners.map(async (owner) => (await claimAll(owner)).filter((id) => ids.has(id))));
        const all = results.flat();
        assert.equal(all.length, ids.size, 'every task claimed once');
        assert.equal(new Set(all).size, ids.size, 'no task claimed twice');
        for (const [i, owner] of owners.entries()) await store.releaseTasks(owner, results[i]!);
        for (const id of ids) await store.updateTask(id, { status: 'stopped' });
      });

      it('keeps the executor handle of a job', async () => {
        const id = await claimable('handle');
        await claimAll('handler');
        await store.applyChanges({ owner: 'handler', jobs: [{ id: `${id}.a`, taskId: id, patch: { externalId: 'slurm:12345' } }] });
        assert.equal((await store.getJob(`${id}.a`))!.externalId, 'slurm:12345');
        await store.releaseTasks('handler', [id]);
      });

      it('keeps the image digest of a job, written with its start or on its own', async () => {
        const id = await claimable('digest', {}, ['a', 'b']);
        await claimAll('digester');
        const digest = `sha256:${'ab'.repeat(32)}`;
        await store.applyChanges({
          owner: 'digester',
          relaxed: true,
          jobs: [{ id: `${id}.a`, taskId: id, patch: { status: 'running', reason: 'started', imageDigest: digest } }],
        });
        assert.equal((await store.getJob(`${id}.a`))!.imageDigest, digest);
        assert.equal((await store.getJob(`${id}.b`))!.imageDigest, null, 'null until a job runs in an image');
        await store.updateJob(`${id}.a`, { imageDigest: null });
        assert.equal((await store.getJob(`${id}.a`))!.imageDigest, null);
        await store.releaseTasks('digester', [id]);
      });
    });

    it('lists the tasks of a project newest first, by whole-second range and page', async () => {
      const listed = await store.createProject(project.accountId, 'task-listing');
      const base = 1_650_000_000;
      const offsets = [0.2, 1.7, 2.0, 3.9, 5.5];
      for (const [i, offset] of offsets.entries()) {
        await store.createTask(taskInput(`listed-${i}`, { projectId: listed.id, createdAt: base + offset }), []);
      }
      // Another project's task in the same range is not listed.
      await store.createTask(taskInput('listed-elsewhere', { createdAt: base + 2.5 }), []);
      const names = async (range: { from?: number; to?: number; limit: number; offset?: number }) => {
        const { tasks, total } = await store.listTasks(listed.id, range);
        for (const task of tasks) assert.equal(task.projectName, 'task-listing');
        return { names: tasks.map((t) => t.name), total };
      };
      assert.deepEqual(await names({ limit: 10 }), { names: ['listed-4', 'listed-3', 'listed-2', 'listed-1', 'listed-0'], total: 5 });
      // from and to are inclusive whole seconds: base+3 takes in base+3.9, base+2 takes in base+2.0.
      assert.deepEqual(await names({ from: base + 2, to: base + 3, limit: 10 }), { names: ['listed-3', 'listed-2'], total: 2 });
      assert.deepEqual(await names({ from: base + 1, to: base + 1, limit: 10 }), { names: ['listed-1'], total: 1 });
      assert.deepEqual(await names({ from: base + 4, limit: 10 }), { names: ['listed-4'], total: 1 });
      assert.deepEqual(await names({ to: base, limit: 10 }), { names: ['listed-0'], total: 1 });
      // limit and offset page through; total counts the whole range.
      assert.deepEqual(await names({ limit: 2 }), { names: ['listed-4', 'listed-3'], total: 5 });
      assert.deepEqual(await names({ limit: 2, offset: 1 }), { names: ['listed-3', 'listed-2'], total: 5 });
      assert.deepEqual(await names({ limit: 2, offset: 4 }), { names: ['listed-0'], total: 5 });
      assert.deepEqual(await names({ limit: 2, offset: 9 }), { names: [], total: 5 });
      assert.deepEqual(await names({ from: base + 1, limit: 1, offset: 1 }), { names: ['listed-3'], total: 4 });

      // Keyset pages: each starts after the last task of the one before, ties on created_at broken by id.
      const twin = taskInput('listed-twin', { projectId: listed.id, createdAt: base + 2.0 });
      await store.createTask(twin, []);
      const all = (await store.listTasks(listed.id, { limit: 100 })).tasks;
      assert.equal(all.length, 6);
      const paged: string[] = [];
      for (let after: { createdAt: number; id: string } | undefined; ;) {
        const { tasks, total } = await store.listTasks(listed.id, { limit: 2, ...(after ? { after } : {}) });
        assert.equal(total, 6);
        paged.push(...tasks.map((t) => t.name));
        if (tasks.length < 2) break;
        after = { createdAt: tasks[1]!.createdAt, id: tasks[1]!.id };
      }
      assert.deepEqual(
        paged,
        all.map((t) => t.name),
      );
      assert.ok(paged.indexOf('listed-twin') >= 0 && Math.abs(paged.indexOf('listed-twin') - paged.indexOf('listed-2')) === 1);
      await store.deleteTask(twin.id);
    });

    it('filters a task list by state and by a part of the name, with ranges and keyset pages', async () => {
      const listed = await store.createProject(project.accountId, 'task-filters');
      const base = 1_660_000_000;
      const made: Array<[string, TaskStatus]> = [
        ['Align_s1', 'running'],
        ['align_s2', 'queued'],
        ['qc_s1', 'running'],
        ['qc%_x', 'failed'],
        ['ALIGN_s3', 'succeeded'],
      ];
      for (const [i, [name, status]] of made.entries()) {
        await store.createTask(taskInput(name, { projectId: listed.id, status, createdAt: base + i }), []);
      }
      const names = async (range: Omit<TaskRange, 'limit'> & { limit?: number }) => {
        const { tasks, total } = await store.listTasks(listed.id, { limit: 10, ...range });
        return { names: tasks.map((t) => t.name), total };
      };
      assert.deepEqual(await names({ statuses: ['running'] }), { names: ['qc_s1', 'Align_s1'], total: 2 });
      assert.deepEqual(await names({ statuses: ['running', 'queued'] }), { names: ['qc_s1', 'align_s2', 'Align_s1'], total: 3 });
      assert.deepEqual(await names({ statuses: [] }), { names: [], total: 0 });
      assert.deepEqual(await names({ nameContains: 'align' }), { names: ['ALIGN_s3', 'align_s2', 'Align_s1'], total: 3 });
      assert.deepEqual(await names({ nameContains: 'LIGN_S' }), { names: ['ALIGN_s3', 'align_s2', 'Align_s1'], total: 3 });
      // LIKE's wildcards are plain characters: '%' and '_' match only themselves.
      assert.deepEqual(await names({ nameContains: '%' }), { names: ['qc%_x'], total: 1 });
      assert.deepEqual(await names({ nameContains: 'c_s' }), { names: ['qc_s1'], total: 1 });
      assert.deepEqual(await names({ nameContains: 'align', statuses: ['running', 'succeeded'], from: base + 1 }), { names: ['ALIGN_s3'], total: 1 });
      const first = await store.listTasks(listed.id, { limit: 1, nameContains: 's1' });
      assert.deepEqual([first.tasks.map((t) => t.name), first.total], [['qc_s1'], 2]);
      const last = first.tasks[0]!;
      assert.deepEqual(await names({ nameContains: 's1', after: { createdAt: last.createdAt, id: last.id } }), { names: ['Align_s1'], total: 2 });
    });

    it('ends a task list with a page that says nothing follows, also when that page is full', async () => {
      const listed = await store.createProject(project.accountId, 'task-last-page');
      const base = 1_670_000_000;
      const states: TaskStatus[] = ['running', 'queued', 'succeeded', 'running', 'failed', 'queued'];
      for (const [i, status] of states.entries()) await store.createTask(taskInput(`last-${i}`, { projectId: listed.id, status, createdAt: base + i }), []);
      const walk = async (range: Omit<TaskRange, 'limit' | 'after'>, limit: number) => {
        const pages: Array<{ names: string[]; total: number | undefined; more: boolean }> = [];
        for (let after: { createdAt: number; id: string } | undefined; ;) {
          const { tasks, total, more } = await store.listTasks(listed.id, { ...range, limit, ...(after ? { after } : {}) });
          pages.push({ names: tasks.map((t) => t.name), total, more });
          if (!more) return pages;
          assert.equal(tasks.length, limit, 'only a full page can have a next one');
          after = { createdAt: tasks.at(-1)!.createdAt, id: tasks.at(-1)!.id };
        }
      };
      // Six tasks in pages of three and of six: the full last page says nothing follows (no page that is empty).
      assert.deepEqual(await walk({}, 3), [
        { names: ['last-5', 'last-4', 'last-3'], total: 6, more: true },
        { names: ['last-2', 'last-1', 'last-0'], total: 6, more: false },
      ]);
      assert.deepEqual(await walk({}, 6), [{ names: ['last-5', 'last-4', 'last-3', 'last-2', 'last-1', 'last-0'], total: 6, more: false }]);
      assert.deepEqual(await walk({}, 7), [{ names: ['last-5', 'last-4', 'last-3', 'last-2', 'last-1', 'last-0'], total: 6, more: false }]);
      // By offset too; past the end, an empty page.
      assert.deepEqual(await store.listTasks(listed.id, { limit: 3, offset: 3 }).then((p) => [p.tasks.length, p.total, p.more]), [3, 6, false]);
      assert.deepEqual(await store.listTasks(listed.id, { limit: 2, offset: 3 }).then((p) => [p.tasks.length, p.total, p.more]), [2, 6, true]);
      assert.deepEqual(await store.listTasks(listed.id, { limit: 3, offset: 6 }).then((p) => [p.tasks.length, p.total, p.more]), [0, 6, false]);
      // Filtered by one state and by several (each state's tasks merged newest first), paged by cursor and by offset.
      assert.deepEqual(await walk({ statuses: ['running'] }, 2), [{ names: ['last-3', 'last-0'], total: 2, more: false }]);
      assert.deepEqual(await walk({ statuses: ['queued', 'running', 'queued'] }, 2), [
        { names: ['last-5', 'last-3'], total: 4, more: true },
        { names: ['last-1', 'last-0'], total: 4, more: false },
      ]);
      const skipped = await store.listTasks(listed.id, { limit: 2, offset: 1, statuses: ['running', 'failed', 'queued'] });
      assert.deepEqual([skipped.tasks.map((t) => t.name), skipped.total, skipped.more], [['last-4', 'last-3'], 5, true]);
      // By name, counted up to a limit: past it, the total is not known, and the pages are the same.
      assert.deepEqual(await walk({ nameContains: 'LAST-', countUpTo: 6 }, 4), [
        { names: ['last-5', 'last-4', 'last-3', 'last-2'], total: 6, more: true },
        { names: ['last-1', 'last-0'], total: 6, more: false },
      ]);
      assert.deepEqual(await walk({ nameContains: 'last-', countUpTo: 5 }, 4), [
        { names: ['last-5', 'last-4', 'last-3', 'last-2'], total: undefined, more: true },
        { names: ['last-1', 'last-0'], total: undefined, more: false },
      ]);
      // A first page that holds every match needs no count, whatever the limit.
      assert.deepEqual(await walk({ nameContains: 'last-', countUpTo: 1, statuses: ['running'] }, 2), [{ names: ['last-3', 'last-0'], total: 2, more: false }]);
    });

    it('deletes a task with its jobs and events, leaving other tasks alone', async () => {
      const doomed = taskInput('doomed', { status: 'running' });
      const kept = taskInput('kept');
      await store.createTask(doomed, jobsFor(doomed.id, ['a', 'b']));
      await store.createTask(kept, jobsFor(kept.id, ['a']));
      await store.applyChanges({
        jobs: [
          { id: `${doomed.id}.a`, taskId: doomed.id, patch: { status: 'running' } },
          { id: `${kept.id}.a`, taskId: kept.id, patch: { status: 'queued' } },
        ],
      });
      assert.equal((await store.taskEvents(doomed.id)).length, 2);
      const keptJobs = await store.listJobs(kept.id);
      const keptEvents = await store.taskEvents(kept.id);

      await store.deleteTask(doomed.id);
      assert.equal(await store.getTask(doomed.id), undefined);
      assert.deepEqual(await store.listJobs(doomed.id), []);
      assert.equal(await store.getJob(`${doomed.id}.a`), undefined);
      assert.deepEqual(await store.taskEvents(doomed.id), []);
      assert.deepEqual(await store.jobStatusCounts([doomed.id]), new Map([[doomed.id, {}]]));
      assert.equal(
        (await store.listTasks(project.id, { limit: 1000 })).tasks.some((t) => t.id === doomed.id),
        false,
      );
      // Updates to what was deleted change nothing.
      assert.equal(await store.updateJob(`${doomed.id}.a`, { status: 'failed' }), false);
      assert.equal(await store.updateTask(doomed.id, { status: 'failed' }), false);
      await store.applyChanges({
        relaxed: true,
        jobs: [{ id: `${doomed.id}.b`, taskId: doomed.id, patch: { status: 'queued' } }],
        tasks: [{ id: doomed.id, patch: { status: 'failed' } }],
      });
      assert.equal(await store.getTask(doomed.id), undefined);
      assert.deepEqual(await store.taskEvents(doomed.id), []);

      assert.deepEqual(await store.listJobs(kept.id), keptJobs);
      assert.deepEqual(await store.taskEvents(kept.id), keptEvents);
      // The name is free again, and deleting a task that is not there is harmless.
      const again = taskInput('doomed');
      await store.createTask(again, []);
      await store.deleteTask(doomed.id);
      await store.deleteTask(newId());
      assert.equal((await store.getTask(again.id))!.name, 'doomed');
    });

    it('lands relaxed changes made concurrently with ordinary writes, and durable writes after them', { timeout: 10_000 }, async () => {
      const input = taskInput('relaxed-mix', { status: 'running' });
      const nodes = Array.from({ length: 20 }, (_, i) => `n${String(i).padStart(2, '0')}`);
      await store.createTask(input, jobsFor(input.id, nodes));
      const jobId = (node: string) => `${input.id}.${node}`;
      const tool = { projectId: project.id, name: 'relaxedmix', description: '', visibility: 'private' as const };
      const sideTasks = nodes.slice(0, 5).map((n) => taskInput(`relaxed-side-${n}`));

      await Promise.all([
        ...nodes.flatMap((n) => [
          store.applyChanges({
            relaxed: true,
            jobs: [{ id: jobId(n), taskId: input.id, patch: { status: 'queued', reason: `ready ${n}` }, expect: ['waiting'] }],
          }),
          store.createTool(tool),
        ]),
        ...sideTasks.map((t) => store.createTask(t, jobsFor(t.id, ['a']))),
      ]);
      const jobs = await store.listJobs(input.id);
      assert.deepEqual(
        jobs.map((j: Job) => [j.nodeId, j.status, j.reason]).sort(),
        nodes.map((n) => [n, 'queued', `ready ${n}`]),
      );
      assert.deepEqual(
        (await store.getToolVersions(project.id, 'relaxedmix')).map((t) => t.version),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      for (const t of sideTasks) assert.deepEqual(transitions(await store.taskEvents(t.id)), [[null, null, 'queued', 'activated']]);
      const events = await store.taskEvents(input.id);
      assert.equal(events.length, 21);
      assert.deepEqual(
        events
          .slice(1)
          .map((e) => e.jobId)
          .sort(),
        nodes.map(jobId),
      );

      // Durable writes after the relaxed ones.
      await store.applyChanges({
        jobs: nodes.map((n) => ({ id: jobId(n), taskId: input.id, patch: { status: 'running' as const }, expect: ['queued' as const] })),
      });
      assert.equal(await store.updateJob(jobId('n00'), { status: 'succeeded', exitCode: 0 }, ['running']), true);
      assert.equal((await store.createTool(tool)).version, 21);
      // And relaxed and durable changes mixed again.
      await Promise.all([
        store.applyChanges({ relaxed: true, jobs: [{ id: jobId('n01'), taskId: input.id, patch: { status: 'succeeded' } }] }),
        store.updateJob(jobId('n02'), { status: 'failed', exitCode: 1 }, ['running']),
        store.applyChanges({ relaxed: true, tasks: [{ id: input.id, patch: { status: 'failed', reason: 'n02 failed' }, expect: ['running'] }] }),
        store.createTool(tool),
      ]);
      assert.equal(await store.updateTask(input.id, { stopRequested: true }, ['failed']), true);
      assert.deepEqual((await store.jobStatusCounts([input.id])).get(input.id), { running: 17, succeeded: 2, failed: 1 });
      const task = (await store.getTask(input.id))!;
      assert.deepEqual([task.status, task.reason, task.stopRequested], ['failed', 'n02 failed', true]);
      assert.equal((await store.getJob(jobId('n02')))!.exitCode, 1);
      assert.equal((await store.taskEvents(input.id)).length, 21 + 20 + 1 + 3);
      assert.deepEqual(
        (await store.getToolVersions(project.id, 'relaxedmix')).map((t) => t.version),
        Array.from({ length: 22 }, (_, i) => i + 1),
      );
    });
  });
}
