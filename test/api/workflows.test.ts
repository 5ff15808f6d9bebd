import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transport } from '../../src/client/transport.js';
import { rejectsWith } from '../helpers/assert-api.js';
import { fixture } from '../helpers/documents.js';
import { assertRefused, signedRequest } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { TOOLS, createWorkflow, pipelineConfigs, registerPipeline, registerTool, toolId } from '../helpers/workflows.js';

let server: TestServer;
let alice: TestAccount;
let ids: { trim: string; align: string; stats: string };

before(async () => {
  server = await startTestServer();
  alice = await server.account();
  ids = await registerPipeline(alice);
});
after(async () => server.close());

const wf = (a: TestAccount, rest = '') => projectPath(a.name, `workflows/${rest}`);

describe('workflow lifecycle', () => {
  it('creates, puts, reads, lists and deletes a multi-node workflow with a fan-out', async () => {
    const created = await alice.api.send('POST', wf(alice), { json: { workflow_name: 'pipeline', description: 'trim align stats' } });
    assert.equal(created.status, 200);
    assert.equal(await created.text(), '');
    let got = await alice.api.json<any>('GET', wf(alice, 'pipeline/'));
    assert.equal(got.workflows.length, 1);
    assert.equal(got.workflows[0].status, 'unchecked');
    assert.equal(got.workflows[0].version, 1);

    const configs = pipelineConfigs(ids);
    const put = await alice.api.send('PUT', wf(alice, 'pipeline/'), { json: { workflow_version: 1, configs } });
    assert.equal(put.status, 200);
    got = await alice.api.json<any>('GET', wf(alice, 'pipeline/'), { query: { workflow_version: 1 } });
    assert.equal(got.workflows[0].status, 'checked');
    assert.equal(got.workflows[0].description, 'trim align stats', 'an omitted description is left unchanged');
    assert.deepEqual(got.workflows[0].configs, configs, 'configs are returned as stored');

    // Version 2, unchecked; GetWorkflow without a version returns both.
    await alice.api.send('POST', wf(alice), { json: { workflow_name: 'pipeline', description: 'second' } });
    got = await alice.api.json<any>('GET', wf(alice, 'pipeline/'));
    assert.deepEqual(
      got.workflows.map((w: any) => [w.version, w.status]),
      [
        [1, 'checked'],
        [2, 'unchecked'],
      ],
    );

    const list = await alice.api.json<any>('GET', wf(alice));
    const group = list.items.find((g: any[]) => g[0].workflow_name === 'pipeline');
    assert.equal(group.length, 2);
    assert.deepEqual(group[0].authorized_methods, ['GET', 'PUT', 'DELETE']);
    for (const key of ['workflow_url', 'workflow_name', 'workflow_version', 'workflow_id', 'description', 'status', 'created_time', 'modified_time'])
      assert.ok(key in group[0], key);
    assert.match(group[0].workflow_id, /^[0-9a-f]{24}$/);

    const executable = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/'));
    const egroup = executable.items.find((g: any[]) => g[0].workflow_name === 'pipeline');
    assert.equal(egroup.length, 1, 'only the checked version is executable');
    assert.equal('authorized_methods' in egroup[0], false);

    await rejectsWith(
      alice.api.send('GET', projectPath(alice.name, 'executable-workflows/pipeline/'), { query: { workflow_version: 2 } }),
      400,
      'InvalidParameter',
      'has no valid configuration yet',
    );
    const deleted = await alice.api.send('DELETE', wf(alice, 'pipeline/'), { query: { workflow_version: 2 } });
    assert.equal(deleted.status, 200);
    got = await alice.api.json<any>('GET', wf(alice, 'pipeline/'));
    assert.deepEqual(
      got.workflows.map((w: any) => w.version),
      [1],
    );
  });

  it('builds the run-parameter template from the graph', async () => {
    const { parameter } = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/pipeline/'), { query: { workflow_version: 1 } });
    assert.deepEqual(Object.keys(parameter).sort(), ['Conditions', 'Inputs', 'Outputs', 'Parameters', 'Property', 'description', 'name']);
    assert.deepEqual(Object.keys(parameter.Inputs).sort(), ['load_reads', 'load_ref']);
    assert.deepEqual(parameter.Inputs.load_reads, {
      category: 'loaddata',
      alias: 'input reads',
      type: 'file',
      required: true,
      minitems: 1,
      maxitems: 1,
      formats: ['fastq', 'fq'],
      data: [{ name: '', enid: 'reads_link', property: { block_file: { block_name: null, is_block: false, split_format: 'default' } } }],
    });
    assert.deepEqual(parameter.Inputs.load_ref.formats, ['fasta', 'fa']);
    assert.deepEqual(Object.keys(parameter.Outputs).sort(), ['store_bam', 'store_report']);
    assert.deepEqual(parameter.Outputs.store_bam.formats, ['bam']);
    assert.equal(parameter.Outputs.store_report.data[0].name, '/results/report.txt');
    assert.equal(parameter.Outputs.store_bam.data.length, 1);
    assert.deepEqual(Object.keys(parameter.Parameters).sort(), ['align_node', 'stats_node', 'trim_node']);
    assert.deepEqual(parameter.Parameters.trim_node.parameters.quality, {
      variable: true,
      required: true,
      type: 'integer',
      value: 25,
      hint: 'minimum base quality',
      minvalue: 0,
      maxvalue: 60,
    });
    assert.equal(parameter.Parameters.align_node.parameters.threads.value, 2);
    assert.equal(parameter.Parameters.align_node.parameters.rg.value, 'sample', 'a parameter the node does not set keeps the tool default');
    assert.deepEqual(parameter.Property.reference_task, [{ id: null }]);
    assert.deepEqual(parameter.Conditions, { schedule: '' });
  });

  it('saves run defaults that later reads return', async () => {
    const { parameter } = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/pipeline/'), { query: { workflow_version: 1 } });
    parameter.Inputs.load_reads.data[0].name = '/reads/sample1.fastq';
    parameter.Parameters.trim_node.parameters.quality.value = 30;
    parameter.name = 'saved_name';
    const put = await alice.api.send('PUT', projectPath(alice.name, 'executable-workflows/pipeline/'), {
      json: { workflow_version: 1, parameters: parameter },
    });
    assert.equal(put.status, 200);
    const again = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/pipeline/'), { query: { workflow_version: 1 } });
    assert.equal(again.parameter.Inputs.load_reads.data[0].name, '/reads/sample1.fastq');
    assert.equal(again.parameter.Parameters.trim_node.parameters.quality.value, 30);
    assert.equal(again.parameter.name, 'saved_name');
    await rejectsWith(
      alice.api.send('PUT', projectPath(alice.name, 'executable-workflows/pipeline/'), {
        json: { workflow_version: 1, parameters: { Inputs: { nosuchnode: {} } } },
      }),
      400,
      'InvalidParameter',
      'parameters.Inputs.nosuchnode is not a loaddata node',
    );
  });

  it('returns the validated graph as nodes and edges', async () => {
    const graph = await alice.api.json<any>('GET', wf(alice, 'pipeline/graph/'), { query: { workflow_version: 1 } });
    assert.equal(graph.nodes.length, 7);
    const byId = Object.fromEntries(graph.nodes.map((n: any) => [n.node_id, n]));
    assert.equal(byId.load_reads.kind, 'load');
    assert.equal(byId.store_bam.kind, 'store');
    assert.deepEqual(byId.align_node.tool, { account: alice.name, project: 'default', name: 'align', version: 1, tool_id: ids.align });
    assert.equal(byId.load_reads.depth, 0);
    assert.equal(byId.trim_node.depth, 1);
    assert.equal(byId.align_node.depth, 2);
    assert.equal(byId.stats_node.depth, 3);
    const fanOut = graph.edges
      .filter((e: any) => e.enid === 'bam_link')
      .map((e: any) => e.to)
      .sort();
    assert.deepEqual(fanOut, ['stats_node', 'store_bam']);
    // Topological order: every edge goes forward.
    const position = new Map(graph.nodes.map((n: any, i: number) => [n.node_id, i]));
    for (const edge of graph.edges) assert.ok((position.get(edge.from) as number) < (position.get(edge.to) as number));
  });

  it('answers unknown workflows with 4xx JSON errors and empty lists on the wdl routes', async () => {
    await rejectsWith(
      alice.api.send('GET', wf(alice, 'nosuchflow/')),
      400,
      'InvalidParameter',
      "Get workflow failed, since workflow 'nosuchflow' does not exist",
    );
    await rejectsWith(
      alice.api.send('DELETE', wf(alice, 'nosuchflow/'), { query: { workflow_version: 1 } }),
      400,
      'InvalidParameter',
      'Delete workflow failed',
    );
    await rejectsWith(
      alice.api.send('GET', projectPath(alice.name, 'executable-workflows/nosuchflow/'), { query: { workflow_version: 1 } }),
      400,
      'InvalidParameter',
      'Get executable workflow failed',
    );
    assert.deepEqual(await alice.api.json('GET', projectPath(alice.name, 'wdl/workflow/')), []);
    assert.deepEqual(await alice.api.json('GET', projectPath(alice.name, 'wdl/workflow/'), { query: { name: 'nosuchflow', version: 1 } }), []);
    assert.deepEqual(await alice.api.json('GET', projectPath(alice.name, 'wdl/workflow/0123456789abcdef01234567/')), []);
  });

  it('answers 404 WorkflowNotExists when nothing can be listed', async () => {
    const empty = await server.account();
    await rejectsWith(empty.api.send('GET', wf(empty)), 404, 'WorkflowNotExists', 'List workflow cannot find anything.');
    await rejectsWith(
      empty.api.send('GET', projectPath(empty.name, 'executable-workflows/')),
      404,
      'WorkflowNotExists',
      'List executable workflow cannot find anything.',
    );
  });
});

describe('PutWorkflow validation', () => {
  const cases: Array<[string, (c: any) => void, string]> = [
    ['duplicate node ids', (c) => (c.nodelist[3].node_id = 'trim_node'), "node_id 'trim_node' is used by more than one node"],
    [
      'an unknown app_id',
      (c) => (c.nodelist[2].app_id = '0123456789abcdef01234567'),
      "node 'trim_node': app_id '0123456789abcdef01234567' does not name a checked tool version",
    ],
    [
      'an unknown input name',
      (c) => (c.nodelist[2].inputs = { fastq: [{ enid: 'reads_link' }] }),
      "node 'trim_node': input 'fastq' is not an input of tool trim:1",
    ],
    [
      'an unknown output name',
      (c) => (c.nodelist[4].outputs = { summary: [{ enid: 'report_link' }] }),
      "node 'stats_node': output 'summary' is not an output of tool stats:1",
    ],
    ['an unknown parameter', (c) => (c.nodelist[2].parameters.qual = { value: 1 }), "node 'trim_node': parameter 'qual' is not a parameter of tool trim:1"],
    ['a parameter of the wrong type', (c) => (c.nodelist[2].parameters.quality.value = 'high'), "node 'trim_node': parameter 'quality' must be a number"],
    ['a parameter out of range', (c) => (c.nodelist[3].parameters.threads.value = 64), "node 'align_node': parameter 'threads' is 64, above the maximum 8"],
    ['a link produced twice', (c) => (c.nodelist[4].outputs = { report: [{ enid: 'bam_link' }] }), "link 'bam_link' is produced by both"],
    [
      'a link nobody produces',
      (c) => (c.nodelist[4].inputs = { bam: [{ enid: 'ghost_link' }] }),
      "node 'stats_node': input 'bam' uses link 'ghost_link', which no output produces",
    ],
    ['a link nobody consumes', (c) => c.nodelist.splice(6, 1), "link 'report_link' from stats_node.report is not consumed by any input"],
    [
      'formats that do not intersect',
      (c) => (c.nodelist[4].inputs = { bam: [{ enid: 'trimmed_link' }] }),
      "link 'trimmed_link': trim_node.trimmed writes fastq but stats_node.bam accepts only bam",
    ],
    [
      'a required input left unconnected',
      (c) => delete c.nodelist[3].inputs.reference,
      "node 'align_node': required input 'reference' of tool align is not connected",
    ],
    ['a load step with inputs', (c) => (c.nodelist[0].inputs = { data: { enid: 'x' } }), "node 'load_reads' is a loaddata step and takes no inputs"],
    [
      'a store step with an odd parameter',
      (c) => (c.nodelist[5].parameters.colour = { value: 'red' }),
      "node 'store_bam' is a storedata step; its parameters are name and description, not 'colour'",
    ],
    ['a bad node_id', (c) => (c.nodelist[2].node_id = 'trim node'), 'nodelist[2].node_id must be 1 to 128 letters'],
    ['an empty enid', (c) => (c.nodelist[2].inputs.reads = [{ enid: '' }]), "node 'trim_node': inputs.reads[0].enid must be a non-empty string"],
    ['an empty nodelist', (c) => (c.nodelist = []), 'configs.nodelist is empty'],
    ['no nodelist', (c) => delete c.nodelist, 'configs.nodelist must be a list of nodes, not missing'],
  ];
  for (const [label, mutate, reason] of cases) {
    it(`refuses ${label}`, async () => {
      const name = `bad_${label.replace(/[^a-z]/gi, '_')}`.slice(0, 60);
      await alice.api.send('POST', wf(alice), { json: { workflow_name: name } });
      const configs: any = structuredClone(pipelineConfigs(ids));
      mutate(configs);
      await rejectsWith(
        alice.api.send('PUT', wf(alice, `${name}/`), { json: { workflow_version: 1, configs } }),
        400,
        'InvalidParameter',
        `Put workflow definition failed, since ${reason}`,
      );
      const got = await alice.api.json<any>('GET', wf(alice, `${name}/`));
      assert.equal(got.workflows[0].status, 'unchecked', 'nothing was written');
    });
  }

  it('finds a real cycle and names it', async () => {
    await registerTool(alice, 'looper', {
      cmd_template: 'cat {{ inputs.a[0].path }} > {{ outputs.b[0].path }}',
      inputs: { a: { type: 'file', formats: ['txt'], required: false, maxitems: 2 } },
      outputs: { b: { type: 'file', formats: 'txt' } },
      requirements: TOOLS.stats!.requirements,
    });
    const looper = await toolId(alice, 'looper', 1);
    const configs = {
      nodelist: [
        { node_id: 'one', app_id: looper, inputs: { a: [{ enid: 'l2' }] }, outputs: { b: [{ enid: 'l1' }] } },
        { node_id: 'two', app_id: looper, inputs: { a: [{ enid: 'l1' }] }, outputs: { b: [{ enid: 'l2' }] } },
      ],
    };
    await rejectsWith(createWorkflow(alice, 'cyclic', configs), 400, 'InvalidParameter', /the workflow has a cycle: (one -> two -> one|two -> one -> two)/);
  });

  it('refuses an unchecked tool and accepts the /<account>/<tool>/<version> form', async () => {
    await alice.api.send('POST', projectPath(alice.name, 'tools/'), { json: { tool_name: 'undefined_tool' } });
    const configs: any = structuredClone(pipelineConfigs(ids));
    configs.nodelist[4].app_id = `/${alice.name}/undefined_tool/1`;
    await rejectsWith(
      createWorkflow(alice, 'uses_unchecked', configs),
      400,
      'InvalidParameter',
      `app_id '/${alice.name}/undefined_tool/1' does not name a checked tool version`,
    );
    configs.nodelist[4].app_id = `/${alice.name}/stats/1`;
    const ok = await createWorkflow(alice, 'readable_ids', configs);
    assert.equal(ok.status, 200);
  });
});

describe('issue 22: workflow calls as the clients send them (raw signed requests)', () => {
  const send = (method: string, rest: string, body?: unknown) => signedRequest(server.url, alice, method, projectPath(alice.name, rest), body);

  /** PutWorkflow of a new workflow `name`, with the pipeline changed by `mutate`. */
  async function putChanged(name: string, mutate: (c: any) => void) {
    assert.equal((await send('POST', 'workflows/', { workflow_name: name })).status, 200);
    const configs: any = structuredClone(pipelineConfigs(ids));
    mutate(configs);
    return send('PUT', `workflows/${name}/`, { workflow_version: 1, configs });
  }

  it('reads a version only from decimal digits: 1e0, 0x1, 0b1, " 1", +1, 1.0 are the 400 naming workflow_version', async () => {
    assert.equal((await putChanged('digits_flow', () => {})).status, 200);
    const odd: Array<[string, string]> = [
      ['1e0', '1e0'],
      ['0x1', '0x1'],
      ['0b1', '0b1'],
      ['%201', ' 1'],
      ['%2B1', '+1'],
      ['+1', ' 1'],
      ['1.0', '1.0'],
      ['', ''],
      ['0', '0'],
      ['-1', '-1'],
    ];
    const routes: Array<[string, string]> = [
      ['GET', 'workflows/digits_flow/'],
      ['GET', 'executable-workflows/digits_flow/'],
      ['GET', 'workflows/digits_flow/graph/'],
      ['DELETE', 'workflows/digits_flow/'],
    ];
    for (const [method, rest] of routes) {
      for (const [query, shown] of odd) {
        const response = await send(method, `${rest}?workflow_version=${query}`);
        assertRefused(response, 400, 'InvalidParameter', new RegExp(`workflow_version '${shown.replace(/[.+]/g, '\\$&')}' is not a positive integer`));
      }
    }
    for (const query of ['1', '01']) {
      const got = await send('GET', `workflows/digits_flow/?workflow_version=${query}`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json().workflows[0].version, 1, 'nothing was deleted');
      assert.equal((await send('GET', `executable-workflows/digits_flow/?workflow_version=${query}`)).status, 200);
    }
  });

  it('reads the version of an app_id /<account>/<tool>/<version> only from decimal digits', async () => {
    for (const [i, version] of ['0x1', '1e0', '1.0', '+1', ' 1', '0b1'].entries()) {
      const appId = `/${alice.name}/stats/${version}`;
      const response = await putChanged(`odd_app_id_${i}`, (c) => (c.nodelist[4].app_id = appId));
      const reason = new RegExp(`node 'stats_node': app_id '${appId.replace(/[.+]/g, '\\$&')}' does not name a checked tool version`);
      assertRefused(response, 400, 'InvalidParameter', reason);
    }
    assert.equal((await putChanged('decimal_app_id', (c) => (c.nodelist[4].app_id = `/${alice.name}/stats/1`))).status, 200);
  });

  it('refuses a load or store step whose app_id is not its step, as an unknown tool is', async () => {
    const isNot = (node: string, step: string, appId: string) =>
      new RegExp(`node '${node}' is named ${step}, but its app_id '${appId}' is not the ${step} step's`);
    const cases: Array<[string, (c: any) => void, RegExp]> = [
      ['mistyped store id', (c) => (c.nodelist[5].app_id = '55128c94f6f4067d63b956b7'), isNot('store_bam', 'storedata', '55128c94f6f4067d63b956b7')],
      ['misspelt store name', (c) => (c.nodelist[6].app_id = 'storedat'), isNot('store_report', 'storedata', 'storedat')],
      ['load id on a store', (c) => (c.nodelist[5].app_id = '55128c58f6f4067d63b956b5'), isNot('store_bam', 'storedata', '55128c58f6f4067d63b956b5')],
      ['mistyped load id', (c) => (c.nodelist[0].app_id = '55128c58f6f4067d63b956b4'), isNot('load_reads', 'loaddata', '55128c58f6f4067d63b956b4')],
      ['a tool id on a store', (c) => (c.nodelist[5].app_id = ids.stats), isNot('store_bam', 'storedata', '[0-9a-f]{24}')],
      [
        'an unnamed node with a mistyped id',
        (c) => {
          c.nodelist[5].app_id = '55128c94f6f4067d63b956b7';
          delete c.nodelist[5].name;
        },
        /node 'store_bam': app_id '55128c94f6f4067d63b956b7' does not name a checked tool version/,
      ],
    ];
    // The reason names the step's own ids.
    const whole = await putChanged('step_whole_reason', (c) => (c.nodelist[0].app_id = 'loadata'));
    assertRefused(whole, 400, 'InvalidParameter', /is not the loaddata step's \(55128c58f6f4067d63b956b5 or loaddata\)/);
    for (const [label, mutate, reason] of cases) {
      const name = `step_${label.replace(/[^a-z]/gi, '_')}`;
      assertRefused(await putChanged(name, mutate), 400, 'InvalidParameter', reason);
      assert.equal((await send('GET', `workflows/${name}/`)).json().workflows[0].status, 'unchecked', `${label}: nothing was written`);
    }
    // The fixed ids and the step names, with or without a node name, are the steps.
    const named = await putChanged('steps_by_name', (c) => {
      c.nodelist[5].app_id = 'storedata';
      c.nodelist[0].app_id = 'loaddata';
      delete c.nodelist[6].name;
    });
    assert.equal(named.status, 200, named.text);
  });
});

describe('version pinning and visibility', () => {
  it('pins tool versions: a new tool version does not change the workflow, a pinned one cannot be deleted or changed', async () => {
    const account = await server.account();
    const pinnedIds = await registerPipeline(account);
    await createWorkflow(account, 'pinned', pipelineConfigs(pinnedIds));
    const newVersion = await registerTool(account, 'trim', { ...TOOLS.trim, parameters: { quality: { type: 'integer', default: 5 } } });
    assert.equal(newVersion, 2);
    const graph = await account.api.json<any>('GET', projectPath(account.name, 'workflows/pinned/graph/'), { query: { workflow_version: 1 } });
    assert.equal(graph.nodes.find((n: any) => n.node_id === 'trim_node').tool.version, 1);
    await rejectsWith(
      account.api.send('DELETE', projectPath(account.name, 'tools/trim/'), { query: { tool_version: 1 } }),
      400,
      'InvaildParameter',
      `tool 'trim' version 1 is used by workflow ${account.name}/default/pinned:1`,
    );
    await rejectsWith(
      account.api.send('PUT', projectPath(account.name, 'tools/trim/'), { json: { tool_version: 1, configs: { name: 'trim', ...TOOLS.trim } } }),
      400,
      'InvalidParameter',
      'is pinned by workflow',
    );
    // The unpinned version 2 can go; once the workflow is deleted, version 1 can too.
    assert.equal((await account.api.send('DELETE', projectPath(account.name, 'tools/trim/'), { query: { tool_version: 2 } })).status, 200);
    await account.api.send('DELETE', projectPath(account.name, 'workflows/pinned/'), { query: { workflow_version: 1 } });
    assert.equal((await account.api.send('DELETE', projectPath(account.name, 'tools/trim/'), { query: { tool_version: 1 } })).status, 200);
  });

  it("shows public workflows to every account, read-only, and refuses another account's private tools", async () => {
    const key = await server.services.accounts.createKey('public');
    const publisher: TestAccount = {
      name: 'public',
      accessKeyId: key.id,
      accessKeySecret: key.secret,
      api: new Transport({ endpoint: server.url, credentials: { accessKeyId: key.id, accessKeySecret: key.secret }, retries: 0 }),
    };
    const publicIds = await registerPipeline(publisher);
    await createWorkflow(publisher, 'public_pipeline', pipelineConfigs(publicIds));
    const bob = await server.account();
    const list = await bob.api.json<any>('GET', projectPath('public', 'workflows/'));
    const summary = list.items.flat().find((w: any) => w.workflow_name === 'public_pipeline');
    assert.deepEqual(summary.authorized_methods, ['GET']);
    const template = await bob.api.json<any>('GET', projectPath('public', 'executable-workflows/public_pipeline/'), { query: { workflow_version: 1 } });
    assert.ok(template.parameter.Inputs.load_reads);
    await rejectsWith(
      bob.api.send('PUT', projectPath('public', 'workflows/public_pipeline/'), { json: { workflow_version: 1, configs: pipelineConfigs(publicIds) } }),
      403,
      'AccessDenied',
    );
    await rejectsWith(bob.api.send('DELETE', projectPath('public', 'workflows/public_pipeline/'), { query: { workflow_version: 1 } }), 403, 'AccessDenied');
    await rejectsWith(
      bob.api.send('PUT', projectPath('public', 'executable-workflows/public_pipeline/'), { json: { workflow_version: 1, parameters: {} } }),
      403,
      'AccessDenied',
    );
    // Bob may build on public tools, but not on Alice's private ones.
    assert.equal((await createWorkflow(bob, 'on_public_tools', pipelineConfigs(publicIds))).status, 200);
    await rejectsWith(createWorkflow(bob, 'on_alice_tools', pipelineConfigs(ids)), 400, 'InvalidParameter', 'does not name a checked tool version you may use');
  });

  it('accepts the sample Fastqc tool and workflow and gives a template of the sample form', async () => {
    const account = await server.account();
    const tool = fixture('fastqc-tool.yml').app;
    // The sample workflow names the tool's inputs `reads` and output `tgz`.
    tool.inputs = { reads: tool.inputs.inputseq };
    tool.outputs = { tgz: tool.outputs.outputtgz };
    tool.cmd_template = tool.cmd_template.replace('inputs.inputseq', 'inputs.reads').replace('outputs.outputtgz', 'outputs.tgz');
    tool.parameters = { threads: { type: 'integer', default: 2, minvalue: 1, maxvalue: 16, required: true, hint: 'threads' } };
    await registerTool(account, 'Fastqc', tool);
    const workflow = fixture('fastqc-workflow.yml').workflow;
    workflow.nodelist[1].app_id = await toolId(account, 'Fastqc', 1);
    const put = await createWorkflow(account, 'Fastqc', { nodelist: workflow.nodelist });
    assert.equal(put.status, 200);
    const { parameter } = await account.api.json<any>('GET', projectPath(account.name, 'executable-workflows/Fastqc/'), { query: { workflow_version: 1 } });
    const sample = fixture('fastqc-run-parameters.yml');
    assert.deepEqual(Object.keys(parameter).sort(), Object.keys(sample).sort());
    assert.deepEqual(Object.keys(parameter.Inputs), Object.keys(sample.Inputs));
    assert.deepEqual(Object.keys(parameter.Outputs), Object.keys(sample.Outputs));
    assert.deepEqual(Object.keys(parameter.Parameters), Object.keys(sample.Parameters));
    assert.deepEqual(Object.keys(parameter.Inputs.loaddata_reads).sort(), Object.keys(sample.Inputs.loaddata_reads).sort());
    assert.deepEqual(Object.keys(parameter.Outputs.store_data_node_fastqc).sort(), Object.keys(sample.Outputs.store_data_node_fastqc).sort());
    assert.deepEqual(parameter.Inputs.loaddata_reads.formats.sort(), [...sample.Inputs.loaddata_reads.formats].sort());
    assert.equal(parameter.Inputs.loaddata_reads.maxitems, 1000);
    assert.deepEqual(parameter.Outputs.store_data_node_fastqc.formats, ['tgz']);
    assert.deepEqual(
      Object.keys(parameter.Parameters.Fastqc_node1.parameters.threads).sort(),
      Object.keys(sample.Parameters.Fastqc_node1.parameters.threads).sort(),
    );
    assert.equal(parameter.Parameters.Fastqc_node1.parameters.threads.value, 2);
  });
});
