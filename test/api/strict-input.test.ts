/**
 * Strict input (issue 15): each malformed request gets a 4xx in its operation's GeneDock error form, naming the
 * field, never a 5xx and never a silent 200.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefused, rawRequest, signedRequest, type RawResponse } from '../helpers/raw.js';
import { macroChain, simpleTool } from '../helpers/documents.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

let server: TestServer;
let alice: TestAccount;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
  await send('POST', 'tools/', { tool_name: 'strict_tool', description: 'd' });
  await send('PUT', 'tools/strict_tool/', { tool_version: 1, configs: simpleTool('strict_tool') });
});
after(async () => server.close());

const send = (method: string, rest: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> =>
  signedRequest(server.url, alice, method, projectPath(alice.name, rest), body, headers);

const refused = assertRefused;

describe('strict input', () => {
  it('a JSON route whose Content-Type is not application/json', async () => {
    refused(
      await send('POST', 'tools/', { tool_name: 'ct_tool' }, { 'Content-Type': 'text/plain' }),
      400,
      'InvalidParameter',
      /^Create tool failed, since the Content-Type 'text\/plain' is not application\/json/,
    );
    refused(
      await send('PUT', 'tools/strict_tool/', { tool_version: 1 }, { 'Content-Type': 'application/x-www-form-urlencoded' }),
      400,
      'InvalidParameter',
      /^Put tool definition failed, since the Content-Type/,
    );
    const noType = await rawRequest(server.url, {
      method: 'POST',
      target: projectPath(alice.name, 'tools/'),
      body: '{"tool_name":"ct_tool"}',
      sign: { id: alice.accessKeyId, secret: alice.accessKeySecret },
    });
    refused(noType, 400, 'InvalidParameter', /has no Content-Type/);
    const listed = await send('GET', 'tools/ct_tool/');
    assert.equal(listed.status, 404, 'nothing was created');
  });
  it('a charset suffix is fine', async () => {
    const r = await send('POST', 'tools/', { tool_name: 'ct_tool2' }, { 'Content-Type': 'application/json; charset=utf-8' });
    assert.equal(r.status, 200, r.text);
  });
  it('integer fields as strings or floats', async () => {
    refused(await send('POST', 'tools/', { tool_name: 'int_tool', tool_version: '1' }), 400, 'InvalidParameter', /tool_version/);
    refused(await send('POST', 'tools/', { tool_name: 'int_tool', tool_version: 1.5 }), 400, 'InvalidParameter', /tool_version/);
    refused(await send('PUT', 'tools/strict_tool/', { tool_version: '1', configs: simpleTool('strict_tool') }), 400, 'InvalidParameter', /tool_version/);
    refused(await send('GET', 'tools/strict_tool/?tool_version=1.5'), 400, 'InvaildParameter', /tool_version/);
    refused(await send('POST', 'tasks/', { workflow_name: 'nope_wf', workflow_version: '1', parameters: {} }), 400, 'InvalidParameter', /workflow_version/);
  });
  it('JSON nested deeper than 64, anywhere in any body', async () => {
    const deep = (n: number) => '['.repeat(n) + '1' + ']'.repeat(n);
    const body = (n: number) => `{"tool_version":1,"configs":${JSON.stringify(simpleTool('strict_tool')).replace('"homepage":""', `"homepage":${deep(n)}`)}}`;
    refused(await send('PUT', 'tools/strict_tool/', body(200_000)), 400, 'InvalidParameter', /nests arrays and objects more than 10000 deep; the limit is 64/);
    refused(await send('PUT', 'tools/strict_tool/', body(65)), 400, 'InvalidParameter', /67 deep; the limit is 64/);
    refused(await send('POST', 'tasks/', `{"workflow_name":"x_wf","parameters":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`), 400, 'InvalidParameter', /deep/);
    // Brackets inside strings are text, not nesting.
    const inString = await send('PUT', 'tools/strict_tool/', { tool_version: 1, configs: { ...simpleTool('strict_tool'), description: '['.repeat(1000) } });
    assert.equal(inString.status, 200, inString.text);
  });
  it('tool definition member types', async () => {
    const t = simpleTool('strict_tool') as any;
    for (const [mutate, field] of [
      [(d: any) => (d.inputs.reads.name = 5), 'name'],
      [(d: any) => (d.inputs.reads.required = 'yes'), 'required'],
      [(d: any) => (d.inputs.reads.minitems = '1'), 'minitems'],
      [(d: any) => (d.inputs.reads.formats = [1]), 'formats'],
      [(d: any) => (d.requirements.resources.cpu = '2'), 'cpu'],
      [(d: any) => (d.requirements.resources.cpu = 1.5), 'cpu'],
      [(d: any) => (d.requirements.resources.network = 'no'), 'network'],
      [(d: any) => (d.alias = 3), 'alias'],
      [(d: any) => (d.tutorial = 3), 'tutorial'],
      [(d: any) => (d.outputs.out.stdout = 'x'), 'stdout'],
      [(d: any) => (d.requirements.container.image = 5), 'image'],
    ] as Array<[(d: any) => void, string]>) {
      const d = structuredClone(t);
      mutate(d);
      refused(await send('PUT', 'tools/strict_tool/', { tool_version: 1, configs: d }), 400, 'InvalidParameter', new RegExp(field));
    }
  });
  it('templates', async () => {
    for (const [tpl, what] of [
      ['{{ parameters.label | nosuchfilter }}', /uses the filter 'nosuchfilter', which the template engine does not have/],
      ['{{ parameters.label | replace("a", "b") | nosuch(1) }}', /filter 'nosuch'/],
      ['x'.repeat(70_000), /cmd_template is too long: 70000 characters, the limit is 65536/],
      ['{% if true %}'.repeat(500) + 'x' + '{% endif %}'.repeat(500), /nests block statements more than 32 deep/],
      ['{% for i in range(100000000) %}x{% endfor %}', /range\(\) is too long/],
      ['{% for i in range(90000) %}{% for j in range(90000) %}x{% endfor %}{% endfor %}', /steps to render/],
    ] as Array<[string, RegExp]>) {
      refused(
        await send('PUT', 'tools/strict_tool/', { tool_version: 1, configs: { ...simpleTool('strict_tool'), cmd_template: tpl } }),
        400,
        'InvalidParameter',
        what,
      );
    }
  });
  it('templates a long input would drive deep: the 400 naming the limit, never a 500 (issue 22)', async () => {
    for (const [tpl, what] of [
      [`{{ parameters.label${' | lower'.repeat(8_000)} }}`, /one \{\{ \}\} or \{% %\} tag of cmd_template holds more than 256 operators/],
      [`{{ parameters.label${'|lower'.repeat(10_000)} }}`, /holds more than 256 operators/],
      [`{% set x = parameters.label${'|lower'.repeat(10_000)} %}{{ x }}`, /holds more than 256 operators/],
      [`{{ 1${'+1'.repeat(10_000)} }}`, /holds more than 256 operators/],
      [`{{ parameters.label${'~parameters.label'.repeat(3_000)} }}`, /holds more than 256 operators/],
      [`{{ parameters.label${'.x'.repeat(10_000)} }}`, /holds more than 256 operators/],
      [`{{ ${'not '.repeat(5_000)}parameters.label }}`, /holds more than 256 operators/],
      [`{{ ${'('.repeat(10_000)}parameters.label${')'.repeat(10_000)} }}`, /nests brackets more than 32 deep/],
      [`{% if 1 %}${'{%elif 1%}'.repeat(5_000)}{% endif %}`, /more than 100 elif branches/],
      [`${'{%if 1%}'.repeat(3_000)}x${'{%endif%}'.repeat(3_000)}`, /nests block statements more than 32 deep/],
      [macroChain(1_500), /nests evaluations more than 500 deep when rendered/],
    ] as Array<[string, RegExp]>) {
      const response = await send('PUT', 'tools/strict_tool/', { tool_version: 1, configs: { ...simpleTool('strict_tool'), cmd_template: tpl } });
      refused(response, 400, 'InvalidParameter', what);
      assert.match(response.json().error_message, /docs\/templates\.md, "Limits"/);
    }
    const got = await send('GET', 'tools/strict_tool/?tool_version=1');
    assert.equal(got.json().tools[0].configs.cmd_template, simpleTool('strict_tool').cmd_template, 'nothing was written');
  });
  it('PutTool refuses a template no task could run, with the reason a task would get (issue 22)', async () => {
    const put = (cmd_template: string) => send('PUT', 'tools/strict_tool/', { tool_version: 1, configs: { ...simpleTool('strict_tool'), cmd_template } });
    for (const [template, reason] of [
      ['echo $(( {{ inputs.reads[0].path }} / 4 ))', /inputs\.reads\[0\] is used inside shell arithmetic, where only an integer is safe \(tried with/],
      ['echo ${{ parameters.label }}', /parameters\.label directly follows '\$'/],
      ["echo $'{{ inputs.reads[0].path }}'", /inputs\.reads\[0\] is used inside \$'\.\.\.' quoting/],
    ] as Array<[string, RegExp]>) {
      refused(await put(`${template} > {{ outputs.out[0].path }}`), 400, 'InvalidParameter', reason);
    }
    // In a command substitution inside the arithmetic the path is a command's argument, quoted as one.
    const ok = await put('echo $(( $(wc -l < {{ inputs.reads[0].path }}) / 4 )) > {{ outputs.out[0].path }}');
    assert.equal(ok.status, 200, ok.text);
    // What depends on the value a task brings is the task's to refuse: a string parameter may hold an integer.
    assert.equal((await put('echo $(( {{ parameters.label }} + 1 )) > {{ outputs.out[0].path }}')).status, 200);
    assert.equal((await put(simpleTool('strict_tool').cmd_template as string)).status, 200);
  });
  it('an empty name or id in the path is refused, not routed to the collection; a doubled leading slash is one', async () => {
    refused(await send('GET', 'tools//'), 400, 'InvaildParameter', /empty segment/);
    refused(await send('DELETE', 'tasks//'), 404, 'ResourceNotFound', /empty segment/);
    refused(await send('GET', 'tasks//jobs/'), 400, 'InvalidParameter', /empty segment/);
    const doubled = await rawRequest(server.url, {
      method: 'GET',
      target: `/${projectPath(alice.name, 'tools/')}`,
      sign: { id: alice.accessKeyId, secret: alice.accessKeySecret },
    });
    assert.equal(doubled.status, 200, doubled.text);
  });
  it('a NUL character anywhere in a request (PostgreSQL cannot store one): refused, a backslash before u0000 is text', async () => {
    refused(await send('POST', 'tools/', { tool_name: 'nul_tool', description: 'a\u0000b' }), 400, 'InvalidParameter', /NUL character/);
    refused(await send('GET', 'tools/a%00b/'), 400, 'InvaildParameter', /NUL character \(%00\)/);
    refused(
      await rawRequest(server.url, {
        method: 'GET',
        target: `/accounts/${alice.name}/projects/%00/tasks/`,
        sign: { id: alice.accessKeyId, secret: alice.accessKeySecret },
      }),
      400,
      'InvalidParameter',
      /NUL/,
    );
    const text = await send('POST', 'tools/', { tool_name: 'nul_tool', description: 'a\\u0000b' });
    assert.equal(text.status, 200, text.text);
  });

  it('empty workflow_owner', async () => {
    refused(
      await send('POST', 'tasks/', { workflow_name: 'nope_wf', workflow_version: 1, workflow_owner: '', parameters: {} }),
      400,
      'InvalidParameter',
      /workflow_owner/,
    );
  });
});
