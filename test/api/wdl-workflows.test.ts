/**
 * GeneDock's wdl/workflow/ and wdl/tools/ routes over real HTTP, signed and shaped as gwc 0.4.4 and gdpy 0.1.17 send
 * them (docs/wire.md §8): multipart creates and updates, look-ups, gets with download links fetched without a
 * signature, deletes, and a refusal naming the field for every malformed request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { assertRefused } from '../helpers/raw.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { gdpy, gwcForm, LIB, MAIN, sendForm, unsignedGet, zipOf } from '../helpers/wdl.js';

const TOOL = `version 1.0

task shout {
  input {
    String word
  }
  command <<<
    echo "~{word}!"
  >>>
  output {
    String loud = read_string(stdout())
  }
}
`;

describe('wdl/workflow/ and wdl/tools/ as gwc and gdpy use them', () => {
  let server: TestServer;
  let alice: TestAccount;
  let bob: TestAccount;
  const deps = zipOf({ 'lib/tasks.wdl': LIB });

  before(async () => {
    server = await startTestServer();
    alice = await server.account();
    bob = await server.account();
  });
  after(async () => server.close());

  const create = (name: string, source = MAIN, dependencies: Buffer | null = deps) =>
    sendForm(
      server,
      alice,
      'POST',
      'wdl/workflow/',
      gwcForm(
        { name, description: 'says hello' },
        { source: { filename: 'hello.wdl', data: source }, ...(dependencies ? { dependencies: { filename: 'imports.zip', data: dependencies } } : {}) },
      ),
    );

  it('creates a workflow from a multipart form and answers its id; a look-up by name finds it; an unknown name is []', async () => {
    const created = await create('hello_wf');
    assert.equal(created.status, 200, created.text);
    const { id, version } = created.json();
    assert.match(id, /^[0-9a-f]{24}$/);
    assert.equal(version, 1);
    const found = (await gdpy(server, alice, 'GET', 'wdl/workflow/?name=hello_wf')).json();
    assert.equal(found.length, 1);
    assert.deepEqual([found[0].id, found[0].name, found[0].version], [id, 'hello_wf', 1]);
    assert.equal(typeof found[0].create_at, 'number');
    assert.equal(typeof found[0].update_at, 'number');
    assert.deepEqual((await gdpy(server, alice, 'GET', 'wdl/workflow/?name=hello_wf&version=2')).json(), []);
    assert.deepEqual((await gdpy(server, alice, 'GET', 'wdl/workflow/?name=nosuchflow')).json(), []);
    // gwc tries a 24-character name as an id: a JSON list, empty when there is no such workflow.
    assert.deepEqual((await gdpy(server, alice, 'GET', 'wdl/workflow/0123456789abcdef01234567/')).json(), []);
    assert.deepEqual((await gdpy(server, alice, 'GET', 'wdl/workflow/not-an-id-at-all-but-24c/')).json(), []);
  });

  it('gets a version with links that an unsigned GET reads back byte for byte, and the input template', async () => {
    const { id } = (await create('linked_wf')).json();
    const [got] = (await gdpy(server, alice, 'GET', `wdl/workflow/${id}/?workflow_version=1`)).json();
    assert.equal(got.id, id);
    assert.equal(typeof got.inputs, 'object');
    assert.match(got.source, /^http:\/\/127\.0\.0\.1:\d+\/wdl-files\/[0-9a-f]{24}\/source\/\?expires=\d+&signature=/);
    const source = await unsignedGet(got.source);
    assert.equal(source.status, 200);
    assert.equal(source.body.toString('utf8'), MAIN);
    assert.match(source.headers.get('content-disposition') ?? '', /filename="hello\.wdl"/);
    const zip = await unsignedGet(got.dependencies);
    assert.equal(zip.status, 200);
    assert.deepEqual(Buffer.from(unzipSync(new Uint8Array(zip.body))['lib/tasks.wdl']!).toString('utf8'), LIB);
    // A link whose signature is altered, or that names the other file, is refused in the GeneDock form.
    const forged = got.source.replace(/signature=./, (m: string) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'));
    const refused = await fetch(forged);
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error_code: string }).error_code, 'AccessDenied');
    assert.equal((await fetch(got.source.replace('/source/', '/dependencies/'))).status, 403);
  });

  it('refuses an expired link', async () => {
    const short = await startTestServer({ logUrlTtl: 1 });
    try {
      const carol = await short.account();
      const form = gwcForm({ name: 'expiring' }, { source: { filename: 'a.wdl', data: TOOL.replace('task shout', 'workflow w {}\ntask shout') } });
      const created = await sendForm(short, carol, 'POST', 'wdl/workflow/', form);
      assert.equal(created.status, 200, created.text);
      const [got] = (await gdpy(short, carol, 'GET', `wdl/workflow/${created.json().id}/`)).json();
      const expires = Number(new URL(got.source).searchParams.get('expires'));
      // Wait (on the clock, not a guess) until the link's second has passed.
      while (Date.now() / 1000 <= expires) await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await fetch(got.source);
      assert.equal(response.status, 403);
      assert.match(((await response.json()) as { error_message: string }).error_message, /expired/);
    } finally {
      await short.close();
    }
  });

  it('lists workflows as a list of lists, one per workflow, one element per version', async () => {
    const { id } = (await create('listed_wf')).json();
    const v2 = await sendForm(
      server,
      alice,
      'PUT',
      `wdl/workflow/${id}/`,
      gwcForm({ workflow_version: '1', override: 'False' }, { source: { filename: 'hello.wdl', data: MAIN.replace('Int times = 2', 'Int times = 3') } }),
    );
    assert.equal(v2.status, 200, v2.text);
    const list = (await gdpy(server, alice, 'GET', 'wdl/workflow/')).json();
    const group = list.find((g: any[]) => g[0].id === id);
    assert.deepEqual(
      group.map((v: any) => v.version),
      [1, 2],
    );
    assert.ok(list.every((g: any[]) => Array.isArray(g) && g.length > 0 && g.every((v) => v.id === g[0].id)));
    // Another account sees none of them.
    assert.deepEqual((await gdpy(server, bob, 'GET', 'wdl/workflow/')).json(), []);
    assert.deepEqual((await gdpy(server, bob, 'GET', `wdl/workflow/${id}/`)).json(), []);
  });

  it('updates: override False adds a version (the next, or new_version) that keeps the imports; True replaces one in place', async () => {
    const { id } = (await create('updated_wf')).json();
    const added = await sendForm(
      server,
      alice,
      'PUT',
      `wdl/workflow/${id}/`,
      gwcForm({ workflow_version: '1', override: 'False', new_version: '5', description: 'five' }, {}),
    );
    assert.equal(added.status, 200, added.text);
    assert.equal(added.json().version, 5);
    const [five] = (await gdpy(server, alice, 'GET', `wdl/workflow/${id}/?workflow_version=5`)).json();
    assert.equal(five.description, 'five');
    assert.equal((await unsignedGet(five.source)).body.toString('utf8'), MAIN);
    assert.notEqual(five.dependencies, '');
    const edited = MAIN.replace('Int times = 2', 'Int times = 7');
    const replaced = await sendForm(
      server,
      alice,
      'PUT',
      `wdl/workflow/${id}/`,
      gwcForm({ workflow_version: '1', override: 'True' }, { source: { filename: 'hello.wdl', data: edited } }),
    );
    assert.equal(replaced.status, 200, replaced.text);
    const versions = (await gdpy(server, alice, 'GET', `wdl/workflow/${id}/`)).json();
    assert.deepEqual(
      versions.map((v: any) => v.version),
      [1, 5],
    );
    assert.equal((await unsignedGet(versions[0].source)).body.toString('utf8'), edited);
    // A taken new_version, and a version to replace that does not exist.
    assertRefused(
      await sendForm(server, alice, 'PUT', `wdl/workflow/${id}/`, gwcForm({ workflow_version: '1', override: 'False', new_version: '5' })),
      400,
      'InvalidParameter',
      /new_version 5 exists already; the next free version is 6/,
    );
    assertRefused(
      await sendForm(server, alice, 'PUT', `wdl/workflow/${id}/`, gwcForm({ workflow_version: '3', override: 'True' })),
      404,
      'WorkflowNotExists',
      /no version 3/,
    );
    // A rename applies to every version.
    assert.equal(
      (await sendForm(server, alice, 'PUT', `wdl/workflow/${id}/`, gwcForm({ workflow_version: '5', override: 'True', name: 'renamed_wf' }))).status,
      200,
    );
    assert.deepEqual(
      (await gdpy(server, alice, 'GET', 'wdl/workflow/?name=renamed_wf')).json().map((v: any) => v.version),
      [1, 5],
    );
  });

  it('deletes a version, and the workflow with its last one', async () => {
    const { id } = (await create('deleted_wf')).json();
    assertRefused(await gdpy(server, alice, 'DELETE', `wdl/workflow/${id}/`), 400, 'InvalidParameter', /workflow_version/);
    assertRefused(await gdpy(server, alice, 'DELETE', `wdl/workflow/${id}/?workflow_version=2`), 404, 'WorkflowNotExists', /no version 2/);
    assertRefused(await gdpy(server, bob, 'DELETE', `wdl/workflow/${id}/?workflow_version=1`), 404, 'WorkflowNotExists', /does not exist/);
    const deleted = await gdpy(server, alice, 'DELETE', `wdl/workflow/${id}/?workflow_version=1`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual((await gdpy(server, alice, 'GET', `wdl/workflow/${id}/`)).json(), []);
    assert.deepEqual((await gdpy(server, alice, 'GET', 'wdl/workflow/?name=deleted_wf')).json(), []);
  });

  it('refuses every malformed create and update with the GeneDock error naming the field, and writes nothing', async () => {
    const before = (await gdpy(server, alice, 'GET', 'wdl/workflow/')).json().length;
    const post = (fields: Record<string, string>, files: Parameters<typeof gwcForm>[1] = {}) =>
      sendForm(server, alice, 'POST', 'wdl/workflow/', gwcForm(fields, files));
    const source = { source: { filename: 'hello.wdl', data: MAIN } };
    assertRefused(await post({ description: 'x' }, source), 400, 'InvalidParameter', /^Create WDL workflow failed, since name is required/);
    assertRefused(await post({ name: '9lives' }, source), 400, 'InvalidParameter', /name '9lives' must start with a letter/);
    assertRefused(await post({ name: 'no_source' }), 400, 'InvalidParameter', /source is required/);
    assertRefused(await post({ name: 'text_source', source: '/home/me/x.wdl' }), 400, 'InvalidParameter', /source must be sent as a file part/);
    assertRefused(
      await post({ name: 'bad_utf8' }, { source: { filename: 'x.wdl', data: Buffer.from([0x76, 0xff, 0xfe]) } }),
      400,
      'InvalidParameter',
      /source 'x\.wdl' is not UTF-8 text/,
    );
    assertRefused(
      await post({ name: 'bad_zip' }, { ...source, dependencies: { filename: 'd.zip', data: 'not a zip' } }),
      400,
      'InvalidParameter',
      /dependencies 'd\.zip' is not a zip file/,
    );
    assertRefused(
      await post({ name: 'escaping_zip' }, { ...source, dependencies: { filename: 'd.zip', data: zipOf({ '../up.wdl': LIB }) } }),
      400,
      'InvalidParameter',
      /a path outside the zip/,
    );
    assertRefused(
      await post({ name: 'no_version_line' }, { source: { filename: 'x.wdl', data: 'workflow w {}\n' } }),
      400,
      'InvalidParameter',
      /source x\.wdl:1:1: expected 'version 1\.0'/,
    );
    const badCall = 'version 1.0\nworkflow w {\n  call nope\n}\n';
    assertRefused(
      await post({ name: 'bad_call' }, { source: { filename: 'x.wdl', data: badCall } }),
      400,
      'InvalidParameter',
      /source x\.wdl:3:3: no task or workflow 'nope'/,
    );
    // An import the zip lacks; an error inside an imported file names that file.
    assertRefused(await post({ name: 'no_import' }, source), 400, 'InvalidParameter', /hello\.wdl:2:1: import 'lib\/tasks\.wdl'/);
    const brokenLib = zipOf({ 'lib/tasks.wdl': LIB.replace('command <<<', 'command <<<\n  ~{nosuch}') });
    assertRefused(
      await post({ name: 'broken_import' }, { ...source, dependencies: { filename: 'd.zip', data: brokenLib } }),
      400,
      'InvalidParameter',
      /lib\/tasks\.wdl:\d+:\d+/,
    );
    await create('taken_wf');
    assertRefused(await create('taken_wf'), 400, 'InvalidParameter', /name 'taken_wf' is already used/);
    // JSON where a form is expected, a form where JSON is expected, a form cut short.
    assertRefused(await gdpy(server, alice, 'POST', 'wdl/workflow/', { name: 'json_wf' }), 400, 'InvalidParameter', /must be multipart\/form-data/);
    const form = gwcForm({ workflow_id: 'x' });
    assertRefused(await sendForm(server, alice, 'POST', 'wdl/tasks/', form), 400, 'InvalidParameter', /is not application\/json/);
    const cut = gwcForm({ name: 'cut_wf' }, source);
    assertRefused(
      await sendForm(server, alice, 'POST', 'wdl/workflow/', { ...cut, body: cut.body.subarray(0, cut.body.length - 20) }),
      400,
      'InvalidParameter',
      /multipart|source is required/,
    );
    assertRefused(
      await sendForm(server, alice, 'POST', 'wdl/workflow/', { ...cut, contentType: 'multipart/form-data' }),
      400,
      'InvalidParameter',
      /multipart body/,
    );
    const twice = gwcForm({ name: 'twice_wf' }, source);
    const doubled = Buffer.concat([twice.body.subarray(0, twice.body.length - (twice.contentType.length - 30 + 8)), twice.body]);
    const answer = await sendForm(server, alice, 'POST', 'wdl/workflow/', { ...twice, body: doubled });
    assert.ok(answer.status === 400 && answer.json().error_code === 'InvalidParameter', answer.text);
    // A field or a file sent twice: the one parser keeps every part (WES takes repeated attachments); these routes refuse.
    const once = gwcForm({ name: 'twice_name' }, source);
    const boundary = once.contentType.split('boundary=')[1]!;
    const withPart = (part: string) => ({
      ...once,
      body: Buffer.concat([once.body.subarray(0, once.body.length - `--${boundary}--\r\n`.length), Buffer.from(part), Buffer.from(`--${boundary}--\r\n`)]),
    });
    const field = withPart(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nother_name\r\n`);
    assertRefused(await sendForm(server, alice, 'POST', 'wdl/workflow/', field), 400, 'InvalidParameter', /since field 'name' is sent twice/);
    const file = withPart(`--${boundary}\r\nContent-Disposition: form-data; name="source"; filename="b.wdl"\r\n\r\n${MAIN}\r\n`);
    assertRefused(await sendForm(server, alice, 'POST', 'wdl/workflow/', file), 400, 'InvalidParameter', /since field 'source' is sent twice/);
    // Updates: versions and override as text.
    const { id } = (await create('form_checks')).json();
    const put = (fields: Record<string, string>) => sendForm(server, alice, 'PUT', `wdl/workflow/${id}/`, gwcForm(fields));
    assertRefused(await put({ workflow_version: '1.0' }), 400, 'InvalidParameter', /workflow_version '1\.0' is not a version/);
    assertRefused(await put({ workflow_version: '1', override: 'yes' }), 400, 'InvalidParameter', /override 'yes' is not True or False/);
    assertRefused(await put({ workflow_version: '1', override: 'True', new_version: '4' }), 400, 'InvalidParameter', /new_version 4/);
    assertRefused(await put({ workflow_version: '1', name: 'taken_wf' }), 400, 'InvalidParameter', /name 'taken_wf' is already used/);
    assertRefused(
      await sendForm(server, alice, 'PUT', 'wdl/workflow/0123456789abcdef01234567/', gwcForm({ workflow_version: '1' })),
      404,
      'WorkflowNotExists',
      /does not exist/,
    );
    assertRefused(await sendForm(server, bob, 'PUT', `wdl/workflow/${id}/`, gwcForm({ workflow_version: '1' })), 404, 'WorkflowNotExists', /does not exist/);
    // Nothing half-written: only the workflows made on purpose above exist, each with its one version.
    const list = (await gdpy(server, alice, 'GET', 'wdl/workflow/')).json();
    assert.equal(list.length, before + 2);
    assert.deepEqual(
      (await gdpy(server, alice, 'GET', `wdl/workflow/${id}/`)).json().map((v: any) => v.version),
      [1],
    );
  });

  it('keeps WDL tools: create answers app_id, list is {tool_list, count}, get and delete by name and tool_version', async () => {
    const created = await sendForm(
      server,
      alice,
      'POST',
      'wdl/tools/',
      gwcForm({ name: 'shout', description: 'loud' }, { source: { filename: 'shout.wdl', data: TOOL } }),
    );
    assert.equal(created.status, 200, created.text);
    const appId = created.json().app_id;
    assert.match(appId, /^[0-9a-f]{24}$/);
    const list = (await gdpy(server, alice, 'GET', 'wdl/tools/')).json();
    assert.equal(list.count, 1);
    assert.equal(list.tool_list[0][0].app_id, appId);
    const updated = await sendForm(
      server,
      alice,
      'PUT',
      'wdl/tools/shout/',
      gwcForm({ tool_version: '1', override: 'False' }, { source: { filename: 'shout.wdl', data: TOOL.replace('!', '!!') } }),
    );
    assert.equal(updated.status, 200, updated.text);
    const got = (await gdpy(server, alice, 'GET', 'wdl/tools/shout/?tool_version=2')).json();
    assert.equal(got.tools.length, 1);
    assert.match((await unsignedGet(got.tools[0].source)).body.toString('utf8'), /!!/);
    assert.equal((await gdpy(server, alice, 'DELETE', 'wdl/tools/shout/?tool_version=1')).status, 200);
    assert.deepEqual(
      (await gdpy(server, alice, 'GET', 'wdl/tools/shout/')).json().tools.map((t: any) => t.version),
      [2],
    );
    assertRefused(await gdpy(server, alice, 'GET', 'wdl/tools/nosuchtool/'), 404, 'ToolNotExists', /does not exist/);
    // Tools and workflows are apart: the tool is not a workflow.
    assert.deepEqual((await gdpy(server, alice, 'GET', 'wdl/workflow/?name=shout')).json(), []);
  });
});
