import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { rejectsWith } from '../helpers/assert-api.js';
import { fixture, simpleTool } from '../helpers/documents.js';
import { repoRoot } from '../helpers/paths.js';
import { assertRefused, signedRequest } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { TOOLS } from '../helpers/workflows.js';

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
    await rejectsWith(
      createTool(alice, 'versioned', { tool_version: 7 }),
      400,
      'InvalidParameter',
      'Create tool failed, since tool_version 7 does not match the next version 3',
    );
    await createTool(alice, 'versioned');
    const got = await alice.api.json<any>('GET', tools(alice, 'versioned/'));
    assert.deepEqual(
      got.tools.map((t: any) => t.configs.version),
      [1, 2, 3],
    );
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
    await rejectsWith(
      alice.api.send('POST', tools(alice), { body: Buffer.from('{"tool_name": '), contentType: 'application/json' }),
      400,
      'InvalidParameter',
      'Create tool failed, since the request body is not valid JSON',
    );
    await rejectsWith(alice.api.send('POST', tools(alice), { json: ['x'] }), 400, 'InvalidParameter', 'must be a JSON object');
    await rejectsWith(
      alice.api.send('POST', tools(alice), { body: Buffer.from('{"__proto__": {"x": 1}, "tool_name": "proto"}'), contentType: 'application/json' }),
      400,
      'InvalidParameter',
    );
  });
});

describe('PutTool', () => {
  it('accepts the example tools of the spec and marks the version checked', async () => {
    for (const [file, name] of [
      ['fastqc-tool.yml', 'Fastqc'],
      ['hello-tool.yml', 'Hello'],
    ] as const) {
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
    [
      'two stdin inputs',
      (c) => {
        c.inputs.a = { type: 'file', formats: ['x'], stdin: true };
        c.inputs.b = { type: 'file', formats: ['x'], stdin: true };
      },
      'only one input may be stdin',
    ],
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
    await rejectsWith(
      alice.api.send('PUT', tools(alice, 'putmissing/'), { json: { configs: simpleTool('putmissing') } }),
      400,
      'InvalidParameter',
      'tool_version is required',
    );
    await rejectsWith(putTool(alice, 'putmissing', 5, simpleTool('putmissing')), 400, 'InvalidParameter', "tool 'putmissing' version 5 does not exist");
    await rejectsWith(
      putTool(alice, 'putmissing', 'one' as unknown as number, simpleTool('putmissing')),
      400,
      'InvalidParameter',
      "tool_version 'one' is not a positive integer",
    );
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
    await rejectsWith(
      account.api.send('GET', tools(account, 'known/'), { query: { tool_version: 'x' } }),
      400,
      'InvaildParameter',
      "Get Tool failed, since tool_version 'x' is not a positive integer",
    );
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
    assert.deepEqual(
      Object.keys(v2).sort(),
      [
        'authorized_methods',
        'category',
        'created_time',
        'description',
        'modified_time',
        'status',
        'tool_id',
        'tool_name',
        'tool_url',
        'tool_version',
        'type',
      ].sort(),
    );
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
    assert.deepEqual(
      all.tools.map((t: any) => t.configs.version),
      [1, 2],
    );
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
    await rejectsWith(
      account.api.send('DELETE', tools(account, 'listed/')),
      400,
      'InvaildParameter',
      'Delete Tool failed, since the query parameter tool_version is required',
    );
    await rejectsWith(
      account.api.send('DELETE', tools(account, 'listed/'), { query: { tool_version: 5 } }),
      400,
      'InvaildParameter',
      "tool 'listed' version 5 does not exist",
    );
    const response = await account.api.send('DELETE', tools(account, 'listed/'), { query: { tool_version: 1 } });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '');
    const all = await account.api.json<any>('GET', tools(account, 'listed/'));
    assert.deepEqual(
      all.tools.map((t: any) => t.configs.version),
      [2],
    );
  });
});

describe('issue 22: tool calls as the clients send them (raw signed requests)', () => {
  let bob: TestAccount;
  const send = (method: string, rest: string, body?: unknown) => signedRequest(server.url, bob, method, projectPath(bob.name, rest), body);
  before(async () => {
    bob = await server.account();
  });

  it("GetToolParameterTemplate and GetToolDetails without tool_version answer for the latest checked version (gdpy's get_tool_param('name'))", async () => {
    assert.equal((await send('POST', 'tools/', { tool_name: 'latest_tool' })).status, 200);
    assert.equal((await send('PUT', 'tools/latest_tool/', { tool_version: 1, configs: simpleTool('latest_tool') })).status, 200);
    assert.equal((await send('POST', 'tools/', { tool_name: 'latest_tool' })).status, 200);
    const second = simpleTool('latest_tool', { alias: 'the second' });
    (second.parameters as any).threads.default = 3;
    assert.equal((await send('PUT', 'tools/latest_tool/', { tool_version: 2, configs: second })).status, 200);
    // Version 3 exists but has no definition yet: it is not checked, so not the one answered for.
    assert.equal((await send('POST', 'tools/', { tool_name: 'latest_tool' })).status, 200);

    const template = await send('GET', 'toolparameters/latest_tool/');
    assert.equal(template.status, 200, template.text);
    assert.equal(template.json().parameter.length, 1);
    assert.equal(template.json().parameter[0].version, 2);
    assert.equal(template.json().parameter[0].alias, 'the second');
    assert.deepEqual(template.json().parameter[0].parameters.threads, { variable: true, type: 'integer', value: 3 });
    const details = await send('GET', 'tooldetails/latest_tool/');
    assert.equal(details.status, 200, details.text);
    assert.equal(details.json().length, 1);
    assert.equal(details.json()[0].details.version, 2);
    assert.deepEqual(details.json()[0].details.parameters.threads, { hint: '', default: 3, type: 'integer' });
    // A version given is answered for as before.
    assert.equal((await send('GET', 'toolparameters/latest_tool/?tool_version=1')).json().parameter[0].version, 1);
    assert.equal((await send('GET', 'tooldetails/latest_tool/?tool_version=1')).json()[0].details.version, 1);

    assert.equal((await send('POST', 'tools/', { tool_name: 'unchecked_tool' })).status, 200);
    assertRefused(await send('GET', 'toolparameters/unchecked_tool/'), 404, 'ToolNotExists', /cannot find anything/);
    assertRefused(await send('GET', 'tooldetails/unchecked_tool/'), 404, 'ToolNotExists', /cannot find anything/);
    assertRefused(await send('GET', 'toolparameters/nosuch_tool/'), 404, 'ToolNotExists', /cannot find anything/);
  });

  it('reads a version only from decimal digits: 1e0, 0x1, 0b1, " 1", +1, 1.0 are the 400 naming tool_version on every tool route', async () => {
    assert.equal((await send('POST', 'tools/', { tool_name: 'digits_tool' })).status, 200);
    assert.equal((await send('PUT', 'tools/digits_tool/', { tool_version: 1, configs: simpleTool('digits_tool') })).status, 200);
    // As written in the query; `+` there is a space once decoded.
    const odd: Array<[string, string]> = [
      ['1e0', '1e0'],
      ['0x1', '0x1'],
      ['0b1', '0b1'],
      ['0o1', '0o1'],
      ['%201', ' 1'],
      ['1%20', '1 '],
      ['%2B1', '+1'],
      ['+1', ' 1'],
      ['1.0', '1.0'],
      ['1.', '1.'],
      ['', ''],
      ['0', '0'],
      ['-1', '-1'],
      ['1_0', '1_0'],
      ['Infinity', 'Infinity'],
      ['%EF%BC%91', '１'],
      ['1000000000', '1000000000'],
    ];
    const reason = (shown: string) => new RegExp(`tool_version '${shown.replace(/[.+]/g, '\\$&')}' is not a positive integer`);
    for (const route of ['tools', 'toolparameters', 'tooldetails']) {
      for (const [query, shown] of odd) assertRefused(await send('GET', `${route}/digits_tool/?tool_version=${query}`), 400, 'InvaildParameter', reason(shown));
    }
    for (const [query, shown] of odd) {
      const response = await send('DELETE', `tools/digits_tool/?tool_version=${query}`);
      assertRefused(response, 400, 'InvaildParameter', reason(shown));
      assert.match(response.json().error_message, /^Delete Tool failed, since tool_version/);
    }
    // Nothing was deleted; digits (with leading zeros) are the version.
    for (const query of ['1', '01', '0001']) {
      const got = await send('GET', `tools/digits_tool/?tool_version=${query}`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json().tools[0].configs.version, 1);
    }
  });

  it('refuses a misspelt or mistyped member of an input, output or parameter, naming it and the nearest known member', async () => {
    assert.equal((await send('POST', 'tools/', { tool_name: 'members_tool' })).status, 200);
    const misspelt = (c: any) => {
      c.inputs.reads.fromats = c.inputs.reads.formats;
      delete c.inputs.reads.formats;
    };
    const cases: Array<[(c: any) => void, RegExp]> = [
      [misspelt, /inputs\.reads\.fromats is not a member of an input definition; did you mean formats\?/],
      [(c) => (c.inputs.reads.Formats = ['x']), /inputs\.reads\.Formats is not a member of an input definition; did you mean formats\?/],
      [(c) => (c.inputs.reads.stdout = true), /inputs\.reads\.stdout is not a member of an input definition; its members are .*, stdin\.$/],
      [(c) => (c.outputs.out.stdin = true), /outputs\.out\.stdin is not a member of an output definition; its members are .*, stdout\.$/],
      [(c) => (c.outputs.out.requierd = true), /outputs\.out\.requierd is not a member of an output definition; did you mean required\?/],
      [(c) => (c.parameters.threads.defualt = 4), /parameters\.threads\.defualt is not a member of a parameter definition; did you mean default\?/],
      [(c) => (c.parameters.threads.maxvalu = 4), /parameters\.threads\.maxvalu is not a member of a parameter definition; did you mean maxvalue\?/],
      [(c) => (c.inputs.reads.item = { seperator: ',' }), /inputs\.reads\.item\.seperator is not a member of an item; did you mean separator\?/],
      [
        (c) => (c.inputs.reads.colour = 'red'),
        /inputs\.reads\.colour is not a member of an input definition; its members are name, type, hint, prefix, separator, item, .*, formats, stdin/,
      ],
      [(c) => (c.inputs.reads.formats = 'fastq'), /inputs\.reads\.formats must be a list, not 'fastq'/],
      [(c) => (c.inputs.reads.formats = 'fastq,fq'), /inputs\.reads\.formats must be a list/],
      [(c) => (c.outputs.out.formats = ['fastq']), /outputs\.out\.formats must be a string, not a list/],
    ];
    for (const [mutate, reason] of cases) {
      const configs = simpleTool('members_tool');
      mutate(configs);
      assertRefused(await send('PUT', 'tools/members_tool/', { tool_version: 1, configs }), 400, 'InvalidParameter', reason);
    }
    const got = await send('GET', 'tools/members_tool/');
    assert.equal(got.json().tools[0].status, 'unchecked', 'nothing was written');
    // Unknown members at the top level pass as before: GeneDock documents carry package, document_author and others.
    const configs = { ...simpleTool('members_tool'), package: null, extra_note: 'kept' };
    assert.equal((await send('PUT', 'tools/members_tool/', { tool_version: 1, configs })).status, 200);
    assert.equal((await send('GET', 'tools/members_tool/')).json().tools[0].configs.extra_note, 'kept');
  });

  it('accepts every example tool read back with GetTool, edited and put again (docs/wire.md §7)', async () => {
    const demo = join(repoRoot(), 'examples', 'demo');
    const examples: Array<[string, Record<string, unknown>]> = [
      // The spec's examples (test/fixtures holds them as they are in the interface's examples/).
      ['fastqc-tool.yml', fixture('fastqc-tool.yml').app],
      ['hello-tool.yml', fixture('hello-tool.yml').app],
      ...readdirSync(demo)
        .filter((f) => f.endsWith('-tool.yml'))
        .map((f) => [f, (parseYaml(readFileSync(join(demo, f), 'utf8')) as { app: Record<string, unknown> }).app] as [string, Record<string, unknown>]),
      ['simpleTool', simpleTool('x')],
      ...Object.entries(TOOLS).map(([name, definition]) => [`TOOLS.${name}`, definition] as [string, Record<string, unknown>]),
    ];
    assert.ok(examples.length >= 10, `${examples.length} examples`);
    for (const [i, [label, app]] of examples.entries()) {
      const name = `example_${i}`;
      assert.equal((await send('POST', 'tools/', { tool_name: name })).status, 200);
      const first = await send('PUT', `tools/${name}/`, { tool_version: 1, configs: { ...app, name } });
      assert.equal(first.status, 200, `${label}: ${first.text}`);
      const read = (await send('GET', `tools/${name}/`)).json().tools[0].configs;
      for (const member of ['inputs', 'outputs', 'parameters', 'requirements', 'cmd_template']) {
        if (member in app) assert.deepEqual(read[member], app[member], `${label}: ${member} is read back as put`);
      }
      const edited = { ...read, alias: `${label} edited` };
      const again = await send('PUT', `tools/${name}/`, { tool_version: 1, configs: edited });
      assert.equal(again.status, 200, `${label}, put back: ${again.text}`);
      const reread = (await send('GET', `tools/${name}/`)).json().tools[0].configs;
      assert.equal(reread.alias, `${label} edited`);
      assert.equal(reread._id, read._id);
      assert.equal((await send('PUT', `tools/${name}/`, { tool_version: 1, configs: reread })).status, 200, `${label}: put back unchanged`);
    }
  });

  it('reads formats stored before PutTool typed them as INTERFACE.md 2.2 does, so that the definition can be put again', async () => {
    assert.equal((await send('POST', 'tools/', { tool_name: 'old_formats' })).status, 200);
    // A definition as an earlier gdflow stored it: the input's formats a string, the output's a list.
    const store = server.services.store;
    const project = (await store.getProject(bob.name, 'default'))!;
    const tool = (await store.getTool(project.id, 'old_formats', 1))!;
    const configs = simpleTool('old_formats');
    (configs.inputs as any).reads.formats = 'fastq, fq';
    (configs.outputs as any).out.formats = ['fastq', 'fq'];
    await store.putTool(tool.id, { configs, category: 'test', status: 'checked' });
    const read = (await send('GET', 'tools/old_formats/')).json().tools[0].configs;
    assert.deepEqual(read.inputs.reads.formats, ['fastq', 'fq']);
    assert.equal(read.outputs.out.formats, 'fastq,fq');
    assert.equal((await send('PUT', 'tools/old_formats/', { tool_version: 1, configs: read })).status, 200);
  });
});
