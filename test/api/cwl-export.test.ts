/**
 * The export routes (docs/api.md, docs/cwl.md "Export"): GET tools/<name>/cwl/ and GET workflows/<name>/cwl/ answer a
 * version, or the latest checked one, as a CWL document, and refuse with the GeneDock error body what has none.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rejectsWith } from '../helpers/assert-api.js';
import { assertRefused, signedRequest } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createWorkflow, pipelineConfigs, registerPipeline, registerTool, TOOLS } from '../helpers/workflows.js';

let server: TestServer;
let alice: TestAccount;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
  const ids = await registerPipeline(alice);
  await createWorkflow(alice, 'pipeline', pipelineConfigs(ids));
});
after(async () => server.close());

const get = (account: TestAccount, path: string, query: Record<string, string> = {}) =>
  account.api.json<any>('GET', projectPath(account.name, path), { query });

describe('export as CWL: GET tools/<name>/cwl/', () => {
  it('answers the version asked, or the latest checked one, as a CommandLineTool', async () => {
    await registerTool(alice, 'trim', { ...TOOLS.trim, cmd_template: 'cp {{ inputs.reads[0].path }} {{ outputs.trimmed[0].path }} # v2' });
    const latest = await get(alice, 'tools/trim/cwl/');
    const first = await get(alice, 'tools/trim/cwl/', { tool_version: '1' });
    assert.equal(latest.cwlVersion, 'v1.2');
    assert.equal(latest.class, 'CommandLineTool');
    assert.match(latest.doc, /from tool trim version 2 \(account \S+, project default\)/);
    assert.match(first.doc, /from tool trim version 1 /);
    assert.deepEqual(first.inputs.quality, { type: 'int?', default: 20, doc: 'minimum base quality. gdflow checks that the value is from 0 to 60.' });
  });

  it('refuses a missing tool or version (404), a version without a definition and a malformed version (400)', async () => {
    await rejectsWith(get(alice, 'tools/nope/cwl/'), 404, 'ToolNotExists', "Export tool as CWL failed, since tool 'nope' does not exist.");
    await rejectsWith(get(alice, 'tools/trim/cwl/', { tool_version: '9' }), 404, 'ToolNotExists', "tool 'trim' version 9 does not exist");
    await alice.api.send('POST', projectPath(alice.name, 'tools/'), { json: { tool_name: 'draft' } });
    await rejectsWith(get(alice, 'tools/draft/cwl/', { tool_version: '1' }), 400, 'InvalidParameter', "tool 'draft' version 1 has no valid definition yet");
    const malformed = await signedRequest(server.url, alice, 'GET', projectPath(alice.name, 'tools/trim/cwl/?tool_version=two'));
    assertRefused(malformed, 400, 'InvalidParameter', /tool_version/);
  });

  it("refuses another account's project", async () => {
    const bob = await server.account();
    await rejectsWith(bob.api.json('GET', projectPath(alice.name, 'tools/trim/cwl/')), 403, 'AccessDenied');
  });
});

describe('export as CWL: GET workflows/<name>/cwl/', () => {
  it('answers a Workflow with its tools, a list input fed by a link merged', async () => {
    const document = await get(alice, 'workflows/pipeline/cwl/');
    assert.equal(document.class, 'Workflow');
    assert.deepEqual(Object.keys(document.steps), ['trim_node', 'align_node', 'stats_node']);
    assert.deepEqual(document.steps.align_node.in.reads, { source: ['trim_node/trimmed'], linkMerge: 'merge_flattened' });
    assert.deepEqual(document.requirements.MultipleInputFeatureRequirement, {});
    assert.equal(document.inputs['trim_node.quality'].default, 25);
    assert.equal(document.inputs['store_report.name'].default, 'report.txt');
    assert.equal(document.inputs['store_bam.name'].default, 'store_bam.bam');
    assert.deepEqual(document.outputs.store_report, { type: 'File', outputSource: 'stats_node/report', label: 'store report_link' });
  });

  it('refuses a missing workflow (404)', async () => {
    await rejectsWith(get(alice, 'workflows/nope/cwl/'), 404, 'WorkflowNotExists', 'Export workflow as CWL failed');
  });
});
