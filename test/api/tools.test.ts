import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rejectsWith } from '../helpers/assert-api.js';
import { fixture, simpleTool } from '../helpers/documents.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let alice: TestAccount;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
});
after(async () => server.close());

const tools = (a: TestAccount, rest = '') => projectPath(a.name, `tools/${rest}`);

async function createTool(a: TestAccount, name: string, body: Record<string, unknown> = {}) {
  return a.api.send('POST', tools(a), { json: { tool_name: name, description: `${name} description`, ...body } });
}

async function putTool(a: TestAccount, name: string, version: number, configs: unknown, extra: Record<string, unknown> = {}) {
  return a.api.send('PUT', tools(a, `${name}/`), { json: { tool_version: version, configs, ...extra } });
}

describe('CreateTool', () => {
  it('answers 200 with an empty body and creates version 1, unchecked', async () => {
    const response = await createTool(alice, 'first_tool');
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '');
    assert.match(response.headers.get('x-gd-requestid') ?? '', /^[0-9a-f]{24}$/);
    const got = await alice.api.json<any>('GET', tools(alice, 'first_tool/'));
    assert.equal(got.tools.length, 1);
    assert.equal(got.tools[0].status, 'unchecked');
    assert.equal(got.tools[0].configs.version, 1);
    assert.equal(got.tools[0].configs.name, 'first_tool');
    assert.match(got.tools[0].configs._id, /^[0-9a-f]{24}$/);
    assert.equal(got.tools[0].description, 'first_tool description');
  });

  it('numbers later versions by adding 1, and refuses a tool_version that disagrees', async () => {
    await createTool(alice, 'versioned');
    await createTool(alice, 'versioned', { tool_version: 2 });
    await rejectsWith(createTool(alice, 'versioned', { tool_version: 7 }), 400, 'InvalidParameter', 'Create tool failed, since tool_version 7 does not match the next version 3');
    await createTool(alice, 'versioned');
    const got = await alice.api.json<any>('GET', tools(alice, 'versioned/'));
    assert.deepEqual(got.tools.map((t: any) => t.configs.version), [1, 2, 3]);
  });

  it('keeps versions unique and gap-free under concurrent creates of one name', async () => {
    await Promise.all(Array.from({ length: 25 }, () => createTool(alice, 'racy')));
    const got = await alice.api.json<any>('GET', tools(alice, 'racy/'));
    assert.deepEqual(
      got.tools.map((t: any) => t.configs.version),
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    assert.equal(new Set(got.tools.map((t: any) => t.configs._id)).size, 25);
  });

  const badNames: Array<[unknown, string]> = [
    ['ab', "tool_name 'ab' is too short"],
    ['a'.repeat(129), 'is too long'],
    ['1tool', 'must start with a letter'],
    ['_tool', 'must start with a letter'],
    ['my tool', "may contain only letters, digits, '-' and '_'"],
    ['工具名称', 'may contain only letters'],
    ['tool.name', 'may contain only letters'],
    [42, 'tool_name must be a string'],
    [undefined, 'tool_name is required'],
  ];
  for (const [name, reason] of badNames) {
    it(`refuses tool_name ${JSON.stringify(name)?.slice(0, 20)} with a reason`, async () => {
      await rejectsWith(createTool(alice, name as string), 400, 'InvalidParameter', reason);
    });
  }

  it('accepts names of exactly 3 and 128 characters', async () => {
    await createTool(alice, 'abc');
    await createTool(alice, `a${'b'.repeat(127)}`);
    const got = await alice.api.json<any>('GET', tools(alice, `a${'b'.repeat(127)}/`));
    assert.equal(got.tools.length, 1);
  });

  it('refuses a body that is not JSON or not an object', async () => {
    await rejectsWith(alice.api.send('POST', tools(alice), { body: Buffer.from('{"tool_name": '), contentType: 'application/json' }), 400, 'InvalidParameter', 'Create tool failed, since the request body is not valid JSON');
    await rejectsWith(alice.api.send('POST', tools(alice), { json: ['x'] }), 400, 'InvalidParameter', 'must be a JSON object');
    await rejectsWith(alice.api.send('POST', tools(alice), { body: Buffer.from('{"__proto__": {"x": 1}, "tool_name": "proto"}'), contentType: 'application/json' }), 400, 'InvalidParameter');
  });
});

describe('PutTool', () => {
  it('accepts the example tools of the spec and marks the version checked', async () => {
    for (const [file, name] of [['fastqc-tool.yml', 'Fastqc'], ['hello-tool.yml', 'Hello']] as const) {
      const { app } = fixture(file);
      await createTool(alice, name);
      const response = await putTool(alice, name, 1, app, { description: `the ${name} tool` });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '');
      const got = await alice.api.json<any>('GET', tools(alice, `${name}/`), { query: { tool_version: 1 } });
      assert.equal(got.tools[0].status, 'checked');
      assert.equal(got.tools[0].description, `the ${name} tool`);
      assert.equal(got.tools[0].configs.cmd_template, app.cmd_template);
      assert.equal(got.tools[0].configs.account, alice.name);
      assert.equal(got.tools[0].configs.type, 'private');
      assert.match(got.tools[0].configs.modified_time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      assert.equal(typeof got.tools[0].configs.modified_ts, 'number');
    }
  });

  it('accepts a definition read back from GetTool, with its server-added members', async () => {
    await createTool(alice, 'roundtrip');
    await putTool(alice, 'roundtrip', 1, simpleTool('roundtrip'));
    const got = await alice.api.json<any>('GET', tools(alice, 'roundtrip/'));
    const configs = { ...got.tools[0].configs, alias: 'edited' };
    await putTool(alice, 'roundtrip', 1, configs);
    const again = await alice.api.json<any>('GET', tools(alice, 'roundtrip/'));
    assert.equal(again.tools[0].configs.alias, 'edited');
    assert.equal(again.tools[0].configs._id, got.tools[0].configs._id);
  });

  const broken: Array<[string, (c: any) => void, string]> = [
    ['unknown template variable', (c) => (c.cmd_template = 'echo {{ inputs.nothere[0].path }}'), 'cmd_template refers to inputs.nothere'],
    ['unknown root variable', (c) => (c.cmd_template = 'echo {{ foo }}'), "cmd_template refers to 'foo'"],
    ['unknown parameter', (c) => (c.cmd_template = 'echo {{ parameters.zzz }}'), 'cmd_template refers to parameters.zzz'],
    ['bad requirement', (c) => (c.cmd_template = 'echo {{ requirements.resources.gpu }}'), 'cmd_template refers to requirements.resources.gpu'],
    ['template that does not parse', (c) => (c.cmd_template = 'echo {% for x in %}'), 'cmd_template is not a valid Jinja2 template'],
    ['mem a number, not a size', (c) => (c.requirements.resources.mem = 4096), 'requirements.resources.mem must be a string, not number 4096'],
    ['mem without unit', (c) => (c.requirements.resources.mem = '4096'), 'requirements.resources.mem must be a size'],
    ['disk garbage', (c) => (c.requirements.resources.disk = 'lots'), 'requirements.resources.disk must be a size'],
    ['cpu not an integer', (c) => (c.requirements.resources.cpu = 1.5), 'requirements.resources.cpu must be an integer'],
    ['network not a bool', (c) => (c.requirements.resources.network = 'yes'), 'requirements.resources.network must be true or false'],
    ['bad image', (c) => (c.requirements.container.image = 'Not An Image!'), 'requirements.container.image'],
    ['missing image', (c) => delete c.requirements.container.image, 'requirements.container.image is required'],
    ['missing requirements', (c) => delete c.requirements, 'requirements is required'],
    ['formats not a list', (c) => (c.inputs.reads.formats = 5), 'inputs.reads.formats must be'],
    ['maxitems below minitems', (c) => (c.inputs.reads.maxitems = 0), 'inputs.reads.maxitems (0) is smaller than minitems (1)'],
    ['negative minitems', (c) => (c.outputs.out.minitems = -1), 'outputs.out.minitems must be a non-negative integer'],
    ['input type', (c) => (c.inputs.reads.type = 'directory'), "inputs.reads.type must be 'file'"],
    ['unknown parameter type', (c) => (c.parameters.threads.type = 'complex'), "parameters.threads.type 'complex'"],
    ['default outside the range', (c) => (c.parameters.threads.default = 99), 'parameters.threads default value is 99, above the maximum 16'],
    ['bad member name', (c) => (c.inputs['bad-name'] = { type: 'file', formats: ['x'] }), "inputs name 'bad-name'"],
    ['name differs', (c) => (c.name = 'other'), "configs.name 'other' differs from the tool name"],
    ['two stdin inputs', (c) => {
      c.inputs.a = { type: 'file', formats: ['x'], stdin: true };
      c.inputs.b = { type: 'file', formats: ['x'], stdin: true };
    }, 'only one input may be stdin'],
  ];
  for (const [label, mutate, reason] of broken) {
    it(`refuses a definition with ${label}, naming the member`, async () => {
      const name = `broken_${label.replace(/[^a-z]/gi, '_')}`.slice(0, 60);
      await createTool(alice, name);
      const configs = simpleTool(name);
      mutate(configs);
      await rejectsWith(putTool(alice, name, 1, configs), 400, 'InvalidParameter', `Put tool definition failed, since ${reason}`);
      const got = await alice.api.json<any>('GET', tools(alice, `${name}/`));
      assert.equal(got.tools[0].status, 'unchecked', 'nothing was written');
    });
  }

  it('refuses a missing configs, a missing or unknown version', async () => {
    await createTool(alice, 'putmissing');
    await rejectsWith(alice.api.send('PUT', tools(alice, 'putmissing/'), { json: { tool_version: 1 } }), 400, 'InvalidParameter', 'configs is required');
    await rejectsWith(alice.api.send('PUT', tools(alice, 'putmissing/'), { json: { configs: simpleTool('putmissing') } }), 400, 'InvalidParameter', 'tool_version is required');
    await rejectsWith(putTool(alice, 'putmissing', 5, simpleTool('putmissing')), 400, 'InvalidParameter', "tool 'putmissing' version 5 does not exist");
    await rejectsWith(putTool(alice, 'putmissing', 'one' as unknown as number, simpleTool('putmissing')), 400, 'InvalidParameter', "tool_version 'one' is not a positive integer");
  });
});

describe('GetTool, ListTool, DeleteTool, GetToolParameterTemplate, GetToolDetails', () => {
  let account: TestAccount;
  before(async () => {
    account = await server.account();
  });

  it('ListTool answers 404 ToolNotExists when the project has no tools', async () => {
    await rejectsWith(account.api.send('GET', tools(account)), 404, 'ToolNotExists', 'List Tool cannot find anything.');
  });

  it('GetTool answers 404 ToolNotExists for an unknown tool or version', async () => {
    await rejectsWith(account.api.send('GET', tools(account, 'nosuchtool/')), 404, 'ToolNotExists', 'Get Tool cannot find anything.');
    await createTool(account, 'known');
    await rejectsWith(account.api.send('GET', tools(account, 'known/'), { query: { tool_version: 9 } }), 404, 'ToolNotExists');
    await rejectsWith(account.api.send('GET', tools(account, 'known/'), { query: { tool_version: 'x' } }), 400, 'InvaildParameter', "Get Tool failed, since tool_version 'x' is not a positive integer");
  });

  it('decodes a percent-encoded name before checking it', async () => {
    await rejectsWith(account.api.send('GET', tools(account, 'my%20tool/')), 400, 'InvaildParameter', "tool_name 'my tool' may contain only");
    await createTool(account, 'plainname');
    const got = await account.api.json<any>('GET', tools(account, '%70lainname/'));
    assert.equal(got.tools[0].configs.name, 'plainname');
  });

  it('lists groups of versions with the summary fields', async () => {
    await createTool(account, 'listed');
    await createTool(account, 'listed');
    await putTool(account, 'listed', 2, simpleTool('listed'));
    const list = await account.api.json<any>('GET', tools(account));
    assert.match(list.tool_url, new RegExp(`/accounts/${account.name}/projects/default/tools/$`));
    const group = list.items.find((g: any[]) => g[0].tool_name === 'listed');
    assert.equal(group.length, 2);
    const [v1, v2] = group;
    assert.deepEqual(Object.keys(v2).sort(), ['authorized_methods', 'category', 'created_time', 'description', 'modified_time', 'status', 'tool_id', 'tool_name', 'tool_url', 'tool_version', 'type'].sort());
    assert.equal(v1.tool_version, 1);
    assert.equal(v1.status, 'unchecked');
    assert.equal(v2.status, 'checked');
    assert.equal(v2.category, 'test');
    assert.deepEqual(v2.authorized_methods, ['GET', 'PUT', 'DELETE']);
    assert.equal(typeof v2.created_time, 'number');
    assert.ok(v2.modified_time >= v2.created_time);
    assert.match(v2.tool_id, /^[0-9a-f]{24}$/);
  });

  it('GetTool returns every version when tool_version is absent, one when given', async () => {
    const all = await account.api.json<any>('GET', tools(account, 'listed/'));
    assert.deepEqual(all.tools.map((t: any) => t.configs.version), [1, 2]);
    assert.deepEqual(Object.keys(all.tools[0]).sort(), ['configs', 'created_time', 'description', 'modified_time', 'status']);
    const one = await account.api.json<any>('GET', tools(account, 'listed/'), { query: { tool_version: 2 } });
    assert.equal(one.tools.length, 1);
    assert.equal(one.tools[0].configs.version, 2);
    assert.equal(one.tools[0].configs.new, true);
    assert.equal(all.tools[0].configs.new, false);
  });

  it('GetToolParameterTemplate and GetToolDetails have the documented shapes', async () => {
    const template = await account.api.json<any>('GET', projectPath(account.name, 'toolparameters/listed/'), { query: { tool_version: 2 } });
    assert.equal(template.parameter.length, 1);
    const element = template.parameter[0];
    assert.equal(element.name, 'listed');
    assert.equal(element.version, 2);
    assert.match(element.app_id, /^[0-9a-f]{24}$/);
    assert.deepEqual(element.inputs, { reads: [{ enid: '' }] });
    assert.deepEqual(element.outputs, { out: [{ enid: '' }] });
    assert.deepEqual(element.parameters.threads, { variable: true, type: 'integer', value: 2 });
    const details = await account.api.json<any>('GET', projectPath(account.name, 'tooldetails/listed/'), { query: { tool_version: 2 } });
    assert.equal(details.length, 1);
    assert.equal(details[0].tool_name, 'listed');
    assert.deepEqual(details[0].details.inputs.reads, { minitems: 1, maxitems: 1, formats: ['fastq', 'fq'] });
    assert.deepEqual(details[0].details.outputs.out, { minitems: 1, maxitems: 1, formats: 'fastq' });
    assert.deepEqual(details[0].details.parameters.threads, { hint: '', default: 2, type: 'integer' });
    assert.equal(details[0].details.version, 2);
    await rejectsWith(account.api.send('GET', projectPath(account.name, 'toolparameters/nosuch/'), { query: { tool_version: 1 } }), 404, 'ToolNotExists');
    await rejectsWith(account.api.send('GET', projectPath(account.name, 'tooldetails/nosuch/'), { query: { tool_version: 1 } }), 404, 'ToolNotExists');
  });

  it('DeleteTool removes one version and needs tool_version', async () => {
    await rejectsWith(account.api.send('DELETE', tools(account, 'listed/')), 400, 'InvaildParameter', 'Delete Tool failed, since the query parameter tool_version is required');
    await rejectsWith(account.api.send('DELETE', tools(account, 'listed/'), { query: { tool_version: 5 } }), 400, 'InvaildParameter', "tool 'listed' version 5 does not exist");
    const response = await account.api.send('DELETE', tools(account, 'listed/'), { query: { tool_version: 1 } });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '');
    const all = await account.api.json<any>('GET', tools(account, 'listed/'));
    assert.deepEqual(all.tools.map((t: any) => t.configs.version), [2]);
  });
});
