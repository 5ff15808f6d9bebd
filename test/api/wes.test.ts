/**
 * GA4GH WES 1.1 at /ga4gh/wes/v1 (docs/ga4gh.md, "WES") against a real server over HTTP, on SQLite (and on PostgreSQL
 * with GDFLOW_TEST_STORE=postgres, as `npm run test:postgres` runs it): a CWL workflow posted with its attachments run
 * to COMPLETE and its outputs read back by URL with Basic credentials, a document in the data store, a GeneDock
 * workflow, cancel, paging, every error in the GA4GH form, and accounts that cannot see each other's runs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { basic, ga4ghRequest, startGa4ghServer, type Ga4ghAnswer } from '../helpers/ga4gh.js';
import { signedRequest } from '../helpers/raw.js';
import { projectPath, type TestAccount, type TestServer } from '../helpers/server.js';
import { upload } from '../helpers/tasks.js';
import { singleToolWorkflow, template } from '../helpers/workflows.js';

const WES = '/ga4gh/wes/v1';

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;
let aliceToken: string;

const call = (method: string, path: string, auth: string | undefined, body?: FormData | string, type?: string): Promise<Ga4ghAnswer> =>
  ga4ghRequest(`${server.url}${WES}${path}`, method, auth, body === undefined ? undefined : { raw: body, ...(type ? { type } : {}) });

/** A WES form: string fields as they are, objects as JSON, attachments as file parts named by their relative paths. */
function form(fields: Record<string, unknown>, attachments: Record<string, string> = {}): FormData {
  const out = new FormData();
  for (const [key, value] of Object.entries(fields)) out.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  for (const [name, content] of Object.entries(attachments)) out.append('workflow_attachment', new Blob([content]), name);
  return out;
}

async function run(fields: Record<string, unknown>, attachments: Record<string, string> = {}, auth = basic(alice)): Promise<string> {
  const answer = await call('POST', '/runs', auth, form(fields, attachments));
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  assert.match(answer.json.run_id, /^[0-9a-f]{24}$/);
  return answer.json.run_id as string;
}

async function until(id: string, states: string[], auth = basic(alice), ms = 90_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await call('GET', `/runs/${id}/status`, auth);
    assert.equal(status.status, 200, JSON.stringify(status.json));
    if (states.includes(status.json.state)) return (await call('GET', `/runs/${id}`, auth)).json;
    if (Date.now() > deadline)
      assert.fail(`run ${id} is ${status.json.state}, not ${states.join('/')}: ${JSON.stringify((await call('GET', `/runs/${id}`, auth)).json)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const CAT_TOOL = `cwlVersion: v1.2
class: CommandLineTool
baseCommand: [cat]
inputs:
  file: {type: File, inputBinding: {position: 1}}
  extra: {type: File, inputBinding: {position: 2}, default: {class: File, location: ../data/extra.txt}}
stdout: joined.txt
outputs:
  joined: {type: stdout}
`;

const WORKFLOW = `cwlVersion: v1.2
class: Workflow
inputs:
  reads: File
outputs:
  result: {type: File, outputSource: join/joined}
steps:
  join:
    run: tools/cat.cwl
    in: {file: reads}
    out: [joined]
`;

const SLEEP_TOOL = JSON.stringify({ cwlVersion: 'v1.2', class: 'CommandLineTool', baseCommand: ['sleep', '300'], inputs: {}, outputs: {} });

before(async () => ({ server, alice, bob, aliceToken } = await startGa4ghServer()));
after(async () => server?.close());

describe('WES: service info', () => {
  it('answers without credentials: type wes 1.1.0, CWL v1.0-v1.2 and GeneDock, protocols, counts of every state', async () => {
    const answer = await call('GET', '/service-info', undefined);
    assert.equal(answer.status, 200);
    const info = answer.json;
    assert.deepEqual(info.type, { group: 'org.ga4gh', artifact: 'wes', version: '1.1.0' });
    assert.deepEqual(info.workflow_type_versions, { CWL: { workflow_type_version: ['v1.0', 'v1.1', 'v1.2'] }, GeneDock: { workflow_type_version: ['1.0'] } });
    assert.deepEqual(info.supported_wes_versions, ['1.1.0']);
    assert.equal(info.supported_filesystem_protocols.length, 2);
    for (const field of [
      'id',
      'name',
      'organization',
      'version',
      'workflow_engine_versions',
      'default_workflow_engine_parameters',
      'auth_instructions_url',
      'tags',
    ]) {
      assert.ok(info[field] !== undefined, field);
    }
    for (const state of ['QUEUED', 'RUNNING', 'COMPLETE', 'EXECUTOR_ERROR', 'CANCELED']) assert.equal(typeof info.system_state_counts[state], 'number');
  });
});

describe('WES: CWL runs', () => {
  it('runs a workflow posted with its attachments (type cwl, any case) to COMPLETE; its outputs are URLs read with Basic credentials, and a path on this host', async () => {
    const id = await run(
      {
        workflow_type: 'cwl',
        workflow_type_version: 'v1.2',
        workflow_url: 'wf/main.cwl',
        workflow_params: { reads: { class: 'File', location: 'data/hello.txt' } },
        tags: { sample: 's1' },
      },
      { 'wf/main.cwl': WORKFLOW, 'wf/tools/cat.cwl': CAT_TOOL, 'data/hello.txt': 'hello\n', 'wf/data/extra.txt': 'extra\n' },
    );
    const log = await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(log.state, 'COMPLETE', JSON.stringify(log));
    assert.equal(log.run_id, id);
    assert.equal(log.request.workflow_type, 'CWL');
    assert.equal(log.request.workflow_url, 'wf/main.cwl');
    assert.deepEqual(log.request.tags, { sample: 's1' });
    assert.deepEqual(log.request.workflow_params, { reads: { class: 'File', location: 'data/hello.txt' } });
    assert.equal(log.task_logs_url, `${server.url}${WES}/runs/${id}/tasks`);
    assert.ok(log.run_log.start_time && log.run_log.end_time);
    const result = log.outputs.result;
    assert.equal(result.class, 'File');
    assert.equal(result.basename, 'joined.txt');
    assert.ok(result.location.startsWith(`${server.url}/accounts/${alice.name}/data/`), result.location);
    const fetched = await fetch(result.location, { headers: { authorization: basic(alice) } });
    assert.equal(fetched.status, 200);
    assert.equal(await fetched.text(), 'hello\nextra\n');
    // The client is on this host (loopback): it can open the file itself.
    assert.equal(readFileSync(result.path, 'utf8'), 'hello\nextra\n');
    // Bob's credentials do not read Alice's outputs.
    assert.equal((await fetch(result.location, { headers: { authorization: basic(bob) } })).status, 403);
    // The same task in the GeneDock routes.
    const task = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${id}/`));
    assert.equal(task.status ?? task.task?.status, 'succeeded');
    const tasks = await call('GET', `/runs/${id}/tasks`, basic(alice));
    assert.equal(tasks.status, 200);
    assert.ok(tasks.json.task_logs.length >= 2, JSON.stringify(tasks.json));
    const joined = tasks.json.task_logs.find((t: any) => t.cmd.some((c: string) => c.includes('cat')));
    assert.ok(joined, JSON.stringify(tasks.json.task_logs));
    assert.equal(joined.exit_code, 0);
    const stdout = await fetch(joined.stdout);
    assert.equal(stdout.status, 200);
    const paged = await call('GET', `/runs/${id}/tasks?page_size=1`, basic(alice));
    assert.equal(paged.json.task_logs.length, 1);
    const next = await call('GET', `/runs/${id}/tasks?page_size=1&page_token=${paged.json.next_page_token}`, basic(alice));
    assert.notEqual(next.json.task_logs[0].id, paged.json.task_logs[0].id);
  });

  it('runs a document of the data store (workflow_url gdflow:<path>) with a gdflow: input, named by workflow_engine_parameters.task_name', async () => {
    await upload(alice, '/wes-docs/tools/cat.cwl', CAT_TOOL);
    await upload(alice, '/wes-docs/main.cwl', WORKFLOW);
    await upload(alice, '/wes-docs/data/extra.txt', 'more\n');
    await upload(alice, '/inputs/r.txt', 'reads\n');
    const id = await run({
      workflow_type: 'CWL',
      workflow_url: 'gdflow:wes-docs/main.cwl',
      workflow_params: { reads: { class: 'File', location: 'gdflow:inputs/r.txt' } },
      workflow_engine_parameters: { task_name: 'wes_named_run' },
    });
    const log = await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(log.state, 'COMPLETE', JSON.stringify(log));
    assert.equal(log.run_log.name, 'wes_named_run');
    const fetched = await fetch(log.outputs.result.location, { headers: { authorization: `Bearer ${aliceToken}` } });
    assert.equal(await fetched.text(), 'reads\nmore\n');
  });

  it('cancels a running run: CANCELING, then CANCELED, its job killed', async () => {
    const id = await run({ workflow_type: 'CWL', workflow_url: 'sleep.cwl' }, { 'sleep.cwl': SLEEP_TOOL });
    await until(id, ['RUNNING'], basic(alice), 60_000);
    const cancel = await call('POST', `/runs/${id}/cancel`, basic(alice));
    assert.equal(cancel.status, 200);
    assert.deepEqual(cancel.json, { run_id: id });
    const log = await until(id, ['CANCELED'], basic(alice), 60_000);
    assert.ok(log.run_log.system_logs.length > 0);
    const tasks = (await call('GET', `/runs/${id}/tasks`, basic(alice))).json.task_logs;
    assert.ok(
      tasks.every((t: any) => t.end_time !== null || t.start_time === null),
      JSON.stringify(tasks),
    );
    // Cancelling an ended run leaves it as it is.
    assert.equal((await call('POST', `/runs/${id}/cancel`, basic(alice))).status, 200);
    assert.equal((await call('GET', `/runs/${id}/status`, basic(alice))).json.state, 'CANCELED');
  });

  it('a failing command is EXECUTOR_ERROR, with its reason in run_log.system_logs', async () => {
    const tool = JSON.stringify({ cwlVersion: 'v1.2', class: 'CommandLineTool', baseCommand: ['sh', '-c', 'exit 3'], inputs: {}, outputs: {} });
    const id = await run({ workflow_type: 'CWL', workflow_url: 'fail.cwl' }, { 'fail.cwl': tool });
    const log = await until(id, ['EXECUTOR_ERROR', 'SYSTEM_ERROR', 'COMPLETE']);
    assert.equal(log.state, 'EXECUTOR_ERROR', JSON.stringify(log));
    assert.ok(log.run_log.system_logs[0].length > 0);
    assert.equal(log.outputs, null);
  });
});

describe('WES: GeneDock workflows', () => {
  it('runs a registered workflow (workflow:<name>) with its run template as workflow_params; its stored output is a URL', async () => {
    await singleToolWorkflow(alice, 'weshello', {
      cmd_template: 'echo hello from gdflow > {{ outputs.out[0].path }}',
      outputs: { out: { type: 'file', formats: 'txt' } },
      requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } },
    });
    const id = await run({ workflow_type: 'GENEDOCK', workflow_url: 'workflow:weshello/1', workflow_params: await template(alice, 'weshello') });
    const log = await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(log.state, 'COMPLETE', JSON.stringify(log));
    assert.equal(log.request.workflow_type, 'GeneDock');
    const saved = log.outputs.save;
    assert.equal(saved.class, 'File');
    const fetched = await fetch(saved.location, { headers: { authorization: basic(alice) } });
    assert.equal(await fetched.text(), 'hello from gdflow\n');
    // A CWL type for a GeneDock workflow says which to send.
    const wrong = await call('POST', '/runs', basic(alice), form({ workflow_type: 'CWL', workflow_url: 'workflow:weshello' }));
    assert.equal(wrong.status, 400);
    assert.match(wrong.json.msg, /workflow_type CWL does not fit workflow 'weshello'.*send GeneDock/);
  });
});

describe('WES: workflows imported from CWL', () => {
  it('runs a workflow imported from CWL (workflow:<name>, type CWL) with a CWL job object whose input is attached', async () => {
    // As `gdflow cwl import` packs it: the process is #main.
    const document = {
      cwlVersion: 'v1.2',
      id: 'main',
      class: 'Workflow',
      inputs: { reads: 'File' },
      outputs: { result: { type: 'File', outputSource: 'count/counted' } },
      steps: {
        count: {
          run: {
            class: 'CommandLineTool',
            baseCommand: ['wc', '-c'],
            stdin: '$(inputs.file.path)',
            inputs: { file: 'File' },
            stdout: 'n.txt',
            outputs: { counted: 'stdout' },
          },
          in: { file: 'reads' },
          out: ['counted'],
        },
      },
    };
    await alice.api.json('POST', projectPath(alice.name, 'cwl/import/'), { json: { document, name: 'wescount' } });
    const id = await run(
      { workflow_type: 'CWL', workflow_url: 'workflow:wescount', workflow_params: { reads: { class: 'File', location: 'in/r.txt' } } },
      { 'in/r.txt': '12345' },
    );
    const log = await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(log.state, 'COMPLETE', JSON.stringify(log));
    const fetched = await fetch(log.outputs.result.location, { headers: { authorization: basic(alice) } });
    assert.equal((await fetched.text()).trim(), '5');
    const task = await alice.api.json<any>('GET', projectPath(alice.name, `tasks/${id}/`));
    assert.equal(task.workflow_name ?? task.task?.workflow_name, 'wescount');
    const wrong = await call('POST', '/runs', basic(alice), form({ workflow_type: 'GeneDock', workflow_url: 'workflow:wescount' }));
    assert.match(wrong.json.msg, /imported from CWL: send CWL/);
  });
});

describe('WES: lists, credentials and errors', () => {
  it("pages GET /runs newest first with page_size and page_token, without TES tasks or other accounts' runs", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        await run(
          { workflow_type: 'CWL', workflow_url: 't.cwl' },
          { 't.cwl': JSON.stringify({ cwlVersion: 'v1.2', class: 'CommandLineTool', baseCommand: 'true', inputs: {}, outputs: {} }) },
          basic(bob),
        ),
      );
    const tes = await fetch(`${server.url}/ga4gh/tes/v1/tasks`, {
      method: 'POST',
      headers: { authorization: basic(bob), 'content-type': 'application/json' },
      body: JSON.stringify({ executors: [{ image: 'alpine', command: ['true'] }] }),
    });
    assert.equal(tes.status, 200);
    const first = await call('GET', '/runs?page_size=2', basic(bob));
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.json.runs.map((r: any) => r.run_id),
      [ids[2], ids[1]],
    );
    assert.ok(first.json.next_page_token);
    const second = await call('GET', `/runs?page_size=2&page_token=${first.json.next_page_token}`, basic(bob));
    assert.deepEqual(
      second.json.runs.map((r: any) => r.run_id),
      [ids[0]],
    );
    assert.equal(second.json.next_page_token, undefined);
    const mine = (await call('GET', '/runs', basic(alice))).json.runs.map((r: any) => r.run_id);
    for (const id of ids) assert.ok(!mine.includes(id));
    // Bob's run is a 404 for Alice on every route.
    for (const [method, path] of [
      ['GET', `/runs/${ids[0]}`],
      ['GET', `/runs/${ids[0]}/status`],
      ['GET', `/runs/${ids[0]}/tasks`],
      ['POST', `/runs/${ids[0]}/cancel`],
    ] as const) {
      const answer = await call(method, path, basic(alice));
      assert.equal(answer.status, 404, path);
      assert.deepEqual(Object.keys(answer.json).sort(), ['msg', 'status_code']);
      assert.equal(answer.json.status_code, 404);
    }
    assert.equal((await call('GET', '/runs?page_token=nonsense', basic(bob))).status, 400);
    assert.equal((await call('GET', '/runs?page_size=0', basic(bob))).status, 400);
  });

  it('takes Basic, Bearer and the GeneDock signature; refuses missing or wrong credentials with 401', async () => {
    const id = await run({ workflow_type: 'CWL', workflow_url: 's.cwl' }, { 's.cwl': SLEEP_TOOL }, `Bearer ${aliceToken}`);
    assert.equal((await call('GET', `/runs/${id}/status`, basic(alice))).status, 200);
    const signed = await signedRequest(server.url, alice, 'GET', `${WES}/runs/${id}`);
    assert.equal(signed.status, 200, signed.text);
    assert.equal(signed.json().run_id, id);
    assert.equal((await call('POST', `/runs/${id}/cancel`, `Bearer ${aliceToken}`)).status, 200);
    const missing = await call('GET', '/runs', undefined);
    assert.equal(missing.status, 401);
    assert.equal(missing.json.status_code, 401);
    assert.equal((await call('GET', '/runs', `Basic ${Buffer.from(`${alice.accessKeyId}:wrong`).toString('base64')}`)).status, 401);
    assert.equal((await call('POST', '/runs', undefined, form({ workflow_type: 'CWL', workflow_url: 'x' }))).status, 401);
  });

  it('refuses bad requests with 400 in the GA4GH form, naming the field, and stores nothing', async () => {
    const tool = JSON.stringify({
      cwlVersion: 'v1.2',
      class: 'CommandLineTool',
      baseCommand: 'cat',
      inputs: { f: { type: 'File', inputBinding: {} } },
      outputs: {},
    });
    const cases: Array<[Record<string, unknown>, Record<string, string>, RegExp]> = [
      [{ workflow_type: 'WDL', workflow_url: 't.cwl' }, { 't.cwl': tool }, /workflow_type 'WDL' is not one gdflow runs/],
      [{ workflow_url: 't.cwl' }, { 't.cwl': tool }, /workflow_type/],
      [{ workflow_type: 'CWL' }, { 't.cwl': tool }, /workflow_url/],
      [{ workflow_type: 'CWL', workflow_type_version: 'v2.0', workflow_url: 't.cwl' }, { 't.cwl': tool }, /workflow_type_version 'v2.0'/],
      [
        { workflow_type: 'CWL', workflow_type_version: 'v1.0', workflow_url: 't.cwl' },
        { 't.cwl': tool },
        /workflow_type_version v1.0 is not the document's cwlVersion v1.2/,
      ],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl', workflow_params: '{"f": ' }, { 't.cwl': tool }, /workflow_params is not valid JSON/],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl', workflow_params: '[1]' }, { 't.cwl': tool }, /workflow_params must be a JSON object/],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl', tags: { a: 1 } }, { 't.cwl': tool }, /tags.a must be a string/],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl', workflow_engine_parameters: 'x' }, { 't.cwl': tool }, /workflow_engine_parameters is not valid JSON/],
      [
        { workflow_type: 'CWL', workflow_url: 'missing.cwl' },
        { 't.cwl': tool },
        /workflow_url 'missing.cwl' is not the relative path of an attached file \(attached: t.cwl\)/,
      ],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl' }, { '../t.cwl': tool }, /workflow_attachment '..\/t.cwl'/],
      [
        { workflow_type: 'CWL', workflow_url: 't.cwl', workflow_params: { f: { class: 'File', location: 'nope.txt' } } },
        { 't.cwl': tool },
        /workflow_params.f.location 'nope.txt' names no attached file/,
      ],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl', workflow_params: { g: 1 } }, { 't.cwl': tool }, /inputs.f: missing required input of type File/],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl', colour: 'red' }, { 't.cwl': tool }, /colour/],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl' }, { 't.cwl': 'cwlVersion: v1.2\nclass: Nonsense\n' }, /Nonsense/],
      [{ workflow_type: 'CWL', workflow_url: 'gdflow:no/such/doc.cwl' }, {}, /no\/such\/doc.cwl/],
      [{ workflow_type: 'CWL', workflow_url: 'workflow:nosuch' }, {}, /workflow 'nosuch' has no executable version/],
      [{ workflow_type: 'GeneDock', workflow_url: 't.cwl' }, { 't.cwl': tool }, /workflow_url of a GeneDock run must be workflow:/],
      [{ workflow_type: 'CWL', workflow_url: 't.cwl', workflow_engine: 'cromwell' }, { 't.cwl': tool }, /workflow_engine 'cromwell' is not gdflow/],
    ];
    const before = (await call('GET', '/runs', basic(bob))).json.runs.length;
    for (const [fields, attachments, reason] of cases) {
      const answer = await call('POST', '/runs', basic(bob), form(fields, attachments));
      assert.equal(answer.status, 400, `${JSON.stringify(fields)}: ${JSON.stringify(answer.json)}`);
      assert.equal(answer.json.status_code, 400);
      assert.match(answer.json.msg, reason, JSON.stringify(fields));
    }
    const twice = form({ workflow_type: 'CWL', workflow_url: 't.cwl' }, { 't.cwl': tool });
    twice.append('workflow_type', 'CWL');
    assert.match((await call('POST', '/runs', basic(bob), twice)).json.msg, /workflow_type is given more than once/);
    const broken = await call('POST', '/runs', basic(bob), '--x\r\nnonsense', 'multipart/form-data; boundary=x');
    assert.equal(broken.status, 400);
    assert.match(broken.json.msg, /multipart body is malformed/);
    const text = await call('POST', '/runs', basic(bob), 'workflow_type=CWL', 'text/plain');
    assert.equal(text.status, 400);
    assert.equal((await call('GET', '/runs', basic(bob))).json.runs.length, before, 'no refused request made a run');
    const unknown = await call('GET', '/runs/0123456789abcdef01234567', basic(bob));
    assert.equal(unknown.status, 404);
    assert.match(unknown.json.msg, /run '0123456789abcdef01234567' does not exist/);
    assert.equal((await call('GET', '/runs/not-an-id/status', basic(bob))).status, 404);
  });
});
