/**
 * GA4GH TES 1.1 at /ga4gh/tes/v1 (docs/ga4gh.md) against a real server over HTTP, on SQLite (and on PostgreSQL with
 * GDFLOW_TEST_STORE=postgres, as `npm run test:postgres` runs it): every route, every TES state gdflow reaches but
 * PREEMPTED, the three forms of credentials, tokens revoked and expired, accounts that cannot see each other's tasks,
 * paging and filters, bad bodies in the GA4GH error form, call caching, and the task as GeneDock's routes show it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { basic, ga4ghRequest, startGa4ghServer, type Ga4ghAnswer } from '../helpers/ga4gh.js';
import { rawRequest, signedRequest } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const TES = '/ga4gh/tes/v1';

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;
let aliceToken: string;

/** A TES request; a string body is sent as it is, as JSON (a malformed body), anything else as its JSON. */
const call = (method: string, path: string, auth: string | undefined, body?: unknown): Promise<Ga4ghAnswer> =>
  ga4ghRequest(
    `${server.url}${TES}${path}`,
    method,
    auth,
    body === undefined ? undefined : typeof body === 'string' ? { raw: body, type: 'application/json' } : { json: body },
  );

const create = async (body: unknown, auth = basic(alice)): Promise<string> => {
  const answer = await call('POST', '/tasks', auth, body);
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  return answer.json.id as string;
};

const view = async (id: string, v = 'FULL', auth = basic(alice)) => (await call('GET', `/tasks/${id}?view=${v}`, auth)).json;

/** Poll a task until its state is one of `states` (bounded: a task that never gets there fails the test). */
async function until(id: string, states: string[], auth = basic(alice), ms = 60_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const task = await view(id, 'FULL', auth);
    if (states.includes(task.state)) return task;
    if (Date.now() > deadline) assert.fail(`task ${id} is ${task.state}, not ${states.join('/')}: ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const echo = (words: string[], extra: Record<string, unknown> = {}) => ({ executors: [{ image: 'alpine', command: words }], ...extra });

before(async () => ({ server, alice, bob, aliceToken } = await startGa4ghServer()));
after(async () => server?.close());

describe('TES: service info and credentials', () => {
  it('GET /service-info answers without credentials: type tes 1.1.0, storage forms, backend parameters', async () => {
    const answer = await call('GET', '/service-info', undefined);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json.type, { group: 'org.ga4gh', artifact: 'tes', version: '1.1.0' });
    assert.ok(answer.json.storage.some((s: string) => s.startsWith('gdflow:/')));
    assert.deepEqual(answer.json.tesResources_backend_parameters, ['network']);
  });

  it('takes Basic, Bearer and the GeneDock signature; each acts as the same account', async () => {
    const id = await create(echo(['true']), basic(alice));
    assert.equal((await call('GET', `/tasks/${id}`, `Bearer ${aliceToken}`)).json.state !== undefined, true);
    const signed = await signedRequest(server.url, alice, 'GET', `${TES}/tasks/${id}`);
    assert.equal(signed.status, 200, signed.text);
    assert.equal(signed.json().id, id);
  });

  it('refuses missing, malformed and wrong credentials with 401 in the GA4GH form and says which it takes', async () => {
    const missing = await call('GET', '/tasks', undefined);
    assert.equal(missing.status, 401);
    assert.equal(missing.json.status_code, 401);
    assert.match(missing.json.msg, /Authorization header is missing/);
    assert.match(missing.headers.get('www-authenticate') ?? '', /Basic.*Bearer/);
    const wrong = await call('GET', '/tasks', `Basic ${Buffer.from(`${alice.accessKeyId}:nope`).toString('base64')}`);
    assert.equal(wrong.status, 401);
    assert.match(wrong.json.msg, /secret is not the one/);
    assert.equal((await call('GET', '/tasks', 'Bearer gdt_not_a_token')).status, 401);
    assert.equal((await call('GET', '/tasks', `Bearer gdt_0123456789abcdef_${'a'.repeat(64)}`)).status, 401);
    assert.equal((await call('GET', '/tasks', 'Digest x')).status, 401);
  });

  it('refuses a revoked token and an expired one; the store keeps only the hash of a token', async () => {
    const made = await server.services.tokens.createToken(alice.name);
    assert.equal((await call('GET', '/tasks', `Bearer ${made.token}`)).status, 200);
    const stored = await server.services.store.getAccessToken(made.id);
    assert.equal(stored!.secretSha256, createHash('sha256').update(made.token.split('_')[2]!).digest('hex'));
    assert.ok(!JSON.stringify(stored).includes(made.token.split('_')[2]!));
    await server.services.tokens.revokeToken(made.id);
    const revoked = await call('GET', '/tasks', `Bearer ${made.token}`);
    assert.equal(revoked.status, 401);
    assert.match(revoked.json.msg, /revoked/);
    const secret = 'b'.repeat(64);
    const account = (await server.services.store.getAccount(alice.name))!;
    await server.services.store.createAccessToken({
      id: 'fedcba9876543210',
      secretSha256: createHash('sha256').update(secret).digest('hex'),
      accountId: account.id,
      projectName: null,
      userName: alice.name,
      expiresAt: Date.now() / 1000 - 1,
    });
    const expired = await call('GET', '/tasks', `Bearer gdt_fedcba9876543210_${secret}`);
    assert.equal(expired.status, 401);
    assert.match(expired.json.msg, /expired/);
    const audit = await server.services.store.listAudit({ account: alice.name });
    assert.ok(audit.some((e) => e.operation === 'CreateToken' && e.outcome === 'ok'));
    assert.ok(audit.some((e) => e.operation === 'RevokeToken' && e.outcome === 'ok'));
  });

  it('a token limited to a project acts in that project only', async () => {
    await server.services.accounts.createProject(alice.name, 'other');
    const scoped = await server.services.tokens.createToken(alice.name, { project: 'other' });
    const id = await create(echo(['true']), `Bearer ${scoped.token}`);
    assert.equal((await call('GET', `/tasks/${id}`, `Bearer ${scoped.token}`)).status, 200);
    assert.equal((await call('GET', `/tasks/${id}`, basic(alice))).status, 404, 'the default project does not hold it');
    const task = await server.services.store.getTask(id);
    assert.equal(task!.projectName, 'other');
  });

  it('an account sees only its own tasks', async () => {
    const id = await create(echo(['true']), basic(alice));
    const other = await call('GET', `/tasks/${id}`, basic(bob));
    assert.equal(other.status, 404);
    assert.match(other.json.msg, /does not exist/);
    assert.equal((await call('POST', `/tasks/${id}:cancel`, basic(bob))).status, 404);
    const list = await call('GET', '/tasks?page_size=2048', basic(bob));
    assert.ok(!list.json.tasks.some((t: any) => t.id === id));
  });
});

describe('TES: running tasks', () => {
  it('COMPLETE: executors in order in one job directory, with inputs (content and data store), workdir, env, stdin, stdout, outputs and logs', async () => {
    const put = await signedRequest(server.url, alice, 'PUT', `/accounts/${alice.name}/data/in/reads.txt`, 'r1\nr2\nr3\n', { 'Content-Type': 'text/plain' });
    assert.equal(put.status, 200, put.text);
    const id = await create({
      name: 'first task',
      description: 'counts lines',
      inputs: [
        { path: '/data/in/greeting.txt', content: 'hello from content\n' },
        { path: '/data/in/reads.txt', url: 'gdflow:/in/reads.txt', type: 'FILE' },
      ],
      outputs: [
        { path: '/data/out/count.txt', url: 'gdflow:/out/count.txt' },
        { path: '/data/out/dir', url: 'gdflow:/out/dir', type: 'DIRECTORY' },
      ],
      executors: [
        {
          image: 'alpine',
          command: ['sh', '-c', 'wc -l < reads.txt > /data/out/count.txt; echo "$GREETING"; cat greeting.txt'],
          workdir: '/data/in',
          env: { GREETING: "it's $HOME `x`" },
        },
        { image: 'alpine', command: ['cat'], stdin: '/data/in/reads.txt', stdout: '/data/out/dir/copy.txt' },
        { image: 'alpine', command: ['sh', '-c', 'echo to-stderr >&2; ls /tmp | wc -l'] },
      ],
      tags: { project: 'tes', sample: 's1' },
    });
    const task = await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(task.state, 'COMPLETE', JSON.stringify(task.logs));
    const [log] = task.logs;
    assert.deepEqual(
      log.logs.map((l: any) => l.exit_code),
      [0, 0, 0],
    );
    assert.equal(log.logs[0].stdout, "it's $HOME `x`\nhello from content\n", 'the env value reached the program as sent');
    assert.equal(log.logs[1].stdout, 'r1\nr2\nr3\n', 'stdout of a redirected executor is read from its file');
    assert.equal(log.logs[2].stderr, 'to-stderr\n');
    assert.equal(log.logs[2].stdout.trim(), '0', 'the task has a private, empty /tmp');
    // Each executor's start and end (the times its .start and .end files were written), in order and after creation.
    const times = log.logs.flatMap((l: any) => [l.start_time, l.end_time]).map((t: string) => Date.parse(t));
    assert.ok(
      times.every((t: number, i: number) => Number.isFinite(t) && t >= Date.parse(task.creation_time) - 1000 && (i === 0 || t >= times[i - 1])),
      JSON.stringify(log.logs.map((l: any) => [l.start_time, l.end_time])),
    );
    assert.deepEqual(
      log.outputs.map((o: any) => [o.url, o.path, o.size_bytes]),
      [
        ['gdflow:/out/count.txt', '/data/out/count.txt', '2'],
        ['gdflow:/out/dir/copy.txt', '/data/out/dir/copy.txt', '9'],
      ],
    );
    const stored = await signedRequest(server.url, alice, 'GET', `/accounts/${alice.name}/data/out/count.txt`);
    assert.equal(stored.text, '3\n');
    assert.equal(task.inputs[0].content, 'hello from content\n', 'FULL has the content');
    assert.deepEqual(task.tags, { project: 'tes', sample: 's1' });
    const basicView = await view(id, 'BASIC');
    assert.equal(basicView.inputs[0].content, undefined, 'BASIC leaves out inputs content');
    assert.equal(basicView.logs[0].logs[0].stdout, undefined, 'BASIC leaves out stdout');
    assert.equal(basicView.logs[0].system_logs, undefined);
    assert.deepEqual(await view(id, 'MINIMAL'), { id, state: 'COMPLETE' });
    assert.deepEqual((await call('GET', `/tasks/${id}`, basic(alice))).json, { id, state: 'COMPLETE' }, 'MINIMAL is the default');
  });

  it('the TES task is a gdflow task of one job in the GeneDock routes and the audit log', async () => {
    const id = await create(echo(['echo', 'one job']));
    await until(id, ['COMPLETE']);
    const task = (await signedRequest(server.url, alice, 'GET', projectPath(alice.name, `tasks/${id}/`))).json();
    assert.equal(task.status, 'succeeded');
    const jobs = (await signedRequest(server.url, alice, 'GET', projectPath(alice.name, `tasks/${id}/jobs/`))).json().jobs;
    assert.equal(jobs.length, 1);
    const cmd = (await signedRequest(server.url, alice, 'GET', projectPath(alice.name, `tasks/${id}/cmd/${jobs[0].job_id}/`))).json().cmd;
    assert.match(cmd, /exec 'echo' 'one job'/);
    const audit = await server.services.store.listAudit({ account: alice.name });
    assert.ok(audit.some((e) => e.operation === 'CreateTesTask' && e.target.includes(id)));
  });

  it('no argv word is read by a shell: quotes, $(), ; and newlines reach the program as sent', async () => {
    const words = ["a'b", '$(touch /tmp/pwned)', '; rm -rf /', 'line\nbreak', '`id`', '"q"', '\\'];
    const id = await create(echo(['printf', '%s|', ...words]));
    const task = await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(task.state, 'COMPLETE');
    assert.equal(task.logs[0].logs[0].stdout, `${words.join('|')}|`);
  });

  it('EXECUTOR_ERROR stops at the failing executor; ignore_error goes on to the next', async () => {
    const failing = await create({
      executors: [
        { image: 'alpine', command: ['sh', '-c', 'exit 3'], ignore_error: false },
        { image: 'alpine', command: ['echo', 'hello'] },
      ],
    });
    const ignored = await create({
      executors: [
        { image: 'alpine', command: ['sh', '-c', 'exit 3'], ignore_error: true },
        { image: 'alpine', command: ['echo', 'hello'] },
      ],
    });
    const a = await until(failing, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(a.state, 'EXECUTOR_ERROR');
    assert.deepEqual(
      a.logs[0].logs.map((l: any) => l.exit_code),
      [3],
    );
    const b = await until(ignored, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(b.state, 'COMPLETE');
    assert.deepEqual(
      b.logs[0].logs.map((l: any) => l.exit_code),
      [3, 0],
    );
  });

  it('SYSTEM_ERROR: a URL this server cannot reach, and an output the task did not write, with why in system_logs', async () => {
    const s3 = await create(echo(['true'], { inputs: [{ url: 's3://bucket/file', path: '/data/file' }] }));
    const missing = await create(echo(['true'], { outputs: [{ url: 'gdflow:/never.txt', path: '/data/never.txt' }] }));
    const a = await until(s3, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(a.state, 'SYSTEM_ERROR');
    assert.ok(
      a.logs[0].system_logs.some((l: string) => /not s3:/.test(l)),
      JSON.stringify(a.logs),
    );
    const b = await until(missing, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(b.state, 'SYSTEM_ERROR');
    assert.ok(
      b.logs[0].system_logs.some((l: string) => /did not write/.test(l)),
      JSON.stringify(b.logs),
    );
  });

  it('RUNNING, CANCELING and CANCELED: a cancel kills the running executor', async () => {
    // TERM is ignored: the executor is killed only after the grace period, while the task is CANCELING.
    const id = await create(echo(['sh', '-c', 'trap "" TERM; echo started; sleep 60']));
    await until(id, ['RUNNING']);
    const cancel = await call('POST', `/tasks/${id}:cancel`, basic(alice));
    assert.equal(cancel.status, 200);
    assert.deepEqual(cancel.json, {});
    await until(id, ['CANCELING'], basic(alice), 10_000);
    const task = await until(id, ['CANCELED'], basic(alice), 30_000);
    assert.equal(task.state, 'CANCELED');
    assert.deepEqual(await call('POST', `/tasks/${id}:cancel`, basic(alice)).then((r) => [r.status, r.json]), [200, {}], 'cancelling an ended task is a no-op');
  });

  it('a second identical task comes from the call cache, outputs stored again', async () => {
    const body = echo(['sh', '-c', 'cat /data/in.txt > /data/out.txt'], {
      inputs: [{ path: '/data/in.txt', content: 'cached\n' }],
      outputs: [{ path: '/data/out.txt', url: 'gdflow:/cache/a.txt' }],
    });
    const first = await until(await create(body), ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(first.state, 'COMPLETE');
    const second = await until(await create({ ...body, outputs: [{ path: '/data/out.txt', url: 'gdflow:/cache/b.txt' }] }), [
      'COMPLETE',
      'EXECUTOR_ERROR',
      'SYSTEM_ERROR',
    ]);
    assert.equal(second.state, 'COMPLETE');
    assert.equal(second.logs[0].metadata.cached_from, first.logs[0].metadata.gdflow_job);
    assert.equal(second.logs[0].logs[0].exit_code, 0, 'the executor logs come with the reused outputs');
    assert.equal((await signedRequest(server.url, alice, 'GET', `/accounts/${alice.name}/data/cache/b.txt`)).text, 'cached\n');
  });
});

describe('TES: lists', () => {
  it('pages with page_size and page_token, newest first, and filters by name prefix, state and tags', async () => {
    const tag = `t${Date.now()}`;
    const ids = [];
    for (const name of ['pg-alpha', 'pg-beta', 'other']) ids.push(await create(echo(['true'], { name: `${tag}-${name}`, tags: { run: tag, kind: name } })));
    for (const id of ids) await until(id, ['COMPLETE']);
    const first = await call('GET', `/tasks?tag_key=run&tag_value=${tag}&page_size=2&view=BASIC`, basic(alice));
    assert.deepEqual(
      first.json.tasks.map((t: any) => t.id),
      [ids[2], ids[1]],
    );
    assert.ok(first.json.next_page_token);
    const second = await call('GET', `/tasks?tag_key=run&tag_value=${tag}&page_size=2&page_token=${first.json.next_page_token}`, basic(alice));
    assert.deepEqual(second.json.tasks, [{ id: ids[0], state: 'COMPLETE' }]);
    assert.equal(second.json.next_page_token, undefined);
    const prefix = await call('GET', `/tasks?name_prefix=${tag}-pg&view=BASIC`, basic(alice));
    assert.deepEqual(
      prefix.json.tasks.map((t: any) => t.name),
      [`${tag}-pg-beta`, `${tag}-pg-alpha`],
    );
    assert.deepEqual((await call('GET', `/tasks?name_prefix=pg-alpha`, basic(alice))).json.tasks, [], 'a prefix, not a part');
    const tags = await call('GET', `/tasks?tag_key=kind&tag_key=run&tag_value=other&tag_value=${tag}`, basic(alice));
    assert.deepEqual(
      tags.json.tasks.map((t: any) => t.id),
      [ids[2]],
    );
    const anyValue = await call('GET', `/tasks?tag_key=run&tag_key=kind&tag_value=${tag}`, basic(alice));
    assert.equal(anyValue.json.tasks.length, 3, 'a tag_key without its tag_value matches any value');
    assert.deepEqual((await call('GET', `/tasks?tag_key=run&tag_value=nope`, basic(alice))).json.tasks, []);
    const complete = await call('GET', `/tasks?state=COMPLETE&tag_key=run&tag_value=${tag}`, basic(alice));
    assert.equal(complete.json.tasks.length, 3);
    assert.deepEqual((await call('GET', `/tasks?state=EXECUTOR_ERROR&tag_key=run&tag_value=${tag}`, basic(alice))).json.tasks, []);
  });

  it('bad queries are 400s naming the parameter', async () => {
    for (const [query, pattern] of [
      ['view=EVERYTHING', /view/],
      ['page_size=0', /page_size/],
      ['page_size=abc', /page_size/],
      ['page_token=garbage', /page_token/],
      ['state=DONE', /state/],
      ['tag_value=x', /tag_value/],
    ] as const) {
      const answer = await call('GET', `/tasks?${query}`, basic(alice));
      assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.json)}`);
      assert.match(answer.json.msg, pattern, query);
    }
  });
});

describe('TES: bad bodies', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['not JSON', '{"executors": [', /not valid JSON/],
    ['no executors', {}, /executors/],
    ['empty executors', { executors: [] }, /executors/],
    ['command not a list', { executors: [{ image: 'a', command: 'echo hi' }] }, /command/],
    ['empty command', { executors: [{ image: 'a', command: [] }] }, /command/],
    [
      'two images',
      {
        executors: [
          { image: 'a', command: ['x'] },
          { image: 'b', command: ['y'] },
        ],
      },
      /one image/,
    ],
    ['relative path', echo(['x'], { inputs: [{ path: 'data/x', content: 'x' }] }), /absolute/],
    ['.. in a path', echo(['x'], { outputs: [{ path: '/data/../etc/x', url: 'gdflow:/x' }] }), /normalised/],
    ['a system directory', echo(['x'], { volumes: ['/usr/local'] }), /system/],
    ['a file directly in /', echo(['x'], { inputs: [{ path: '/x', content: 'x' }] }), /directly in/],
    ['an input without url or content', echo(['x'], { inputs: [{ path: '/data/x' }] }), /url or a content/],
    ["another account's output", echo(['x'], { outputs: [{ path: '/data/x', url: `gdflow://${'bob'}/x` }] }), /own account/],
    ['a bad env name', { executors: [{ image: 'a', command: ['x'], env: { 'A-B': '1' } }] }, /variable name/],
    [
      'a path_prefix that does not begin the pattern',
      echo(['x'], { outputs: [{ path: '/data/*.txt', path_prefix: '/other', url: 'gdflow:/x/' }] }),
      /path_prefix/,
    ],
    ['a wildcard directly under /', echo(['x'], { outputs: [{ path: '/*.txt', url: 'gdflow:/x/' }] }), /directly under/],
    ['strict unknown backend parameter', echo(['x'], { resources: { backend_parameters: { VmSize: 'x' }, backend_parameters_strict: true } }), /VmSize/],
    ['a file:// input with no roots allowed', echo(['x'], { inputs: [{ path: '/data/x', url: 'file:///etc/passwd' }] }), /inputs\[0\]\.url.*--tes-file-roots/],
    ['a file:// output with no roots allowed', echo(['x'], { outputs: [{ path: '/data/x', url: 'file:///tmp/x' }] }), /outputs\[0\]\.url.*--tes-output-roots/],
    ['an http input with no host allowed', echo(['x'], { inputs: [{ path: '/data/x', url: 'http://127.0.0.1:9/x' }] }), /inputs\[0\]\.url.*fetches from none/],
  ];
  for (const [what, body, pattern] of cases) {
    it(`${what}: 400 naming the field, never 500`, async () => {
      const answer = await call('POST', '/tasks', basic(alice), body);
      assert.equal(answer.status, 400, JSON.stringify(answer.json));
      assert.equal(answer.json.status_code, 400);
      assert.match(answer.json.msg, pattern);
    });
  }

  it('a non-strict unknown backend parameter is accepted; network is one gdflow knows', async () => {
    const id = await create(
      echo(['true'], {
        resources: { cpu_cores: 1, ram_gb: 0.5, disk_gb: 1, preemptible: true, zones: ['z'], backend_parameters: { VmSize: 'x', network: 'false' } },
      }),
    );
    assert.equal((await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR'])).state, 'COMPLETE');
  });

  it('TES 1.1: unsupported backend parameters are neither kept nor returned (a system log names them); types are filled in', async () => {
    const id = await create({
      ...echo(['sh', '-c', 'cat /data/in.txt > /data/out.txt']),
      inputs: [{ path: '/data/in.txt', content: 'x' }],
      outputs: [{ path: '/data/out.txt', url: 'gdflow:/tes-kept/out.txt' }],
      resources: { cpu_cores: 1, backend_parameters: { VmSize: 'Standard_D64_v3', Network: 'false' }, backend_parameters_strict: false },
    });
    const task = await until(id, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
    assert.equal(task.state, 'COMPLETE', JSON.stringify(task));
    for (const shown of [
      task,
      await view(id, 'BASIC'),
      (await call('GET', '/tasks?view=BASIC&name_prefix=', basic(alice))).json.tasks.find((t: any) => t.id === id),
    ]) {
      assert.deepEqual(shown.resources, { cpu_cores: 1, backend_parameters: { Network: 'false' }, backend_parameters_strict: false });
      assert.equal(shown.inputs[0].type, 'FILE');
      assert.equal(shown.outputs[0].type, 'FILE');
    }
    assert.ok(
      task.logs[0].system_logs.some((line: string) => /backend_parameters 'VmSize' is not supported and was ignored/.test(line)),
      JSON.stringify(task.logs[0].system_logs),
    );
    // What the task runs is as sent: a type given is kept.
    const dir = await create({ ...echo(['true']), outputs: [{ path: '/data/d', url: 'gdflow:/tes-kept/d', type: 'DIRECTORY' }] });
    assert.equal((await view(dir, 'BASIC')).outputs[0].type, 'DIRECTORY');
    await until(dir, ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR']);
  });

  it('unknown routes and ids under /ga4gh answer in the GA4GH form', async () => {
    const unknown = await call('GET', '/nothing', basic(alice));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.status_code, 404);
    const raw = await rawRequest(server.url, { method: 'GET', target: `${TES}/tasks/${'f'.repeat(24)}`, headers: { authorization: basic(alice) } });
    assert.equal(raw.status, 404);
    assert.equal(raw.json().status_code, 404);
  });
});

describe('TES: QUEUED and INITIALIZING', () => {
  let slow: Server;
  let release: (() => void) | undefined;
  let served: Promise<void>;
  let httpServer: TestServer;
  let carol: TestAccount;

  before(async () => {
    let arrived!: () => void;
    served = new Promise((resolve) => (arrived = resolve));
    slow = createServer((_req, res: ServerResponse) => {
      arrived();
      release = () => res.end('slow input\n');
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    httpServer = await startTestServer({ fetchHosts: '127.0.0.1' });
    carol = await httpServer.account();
  });
  after(async () => {
    slow?.closeAllConnections();
    slow?.close();
    await httpServer?.close();
  });

  it('INITIALIZING while an http input is being fetched, then COMPLETE', async () => {
    const port = (slow.address() as AddressInfo).port;
    const auth = basic(carol);
    const answer = await fetch(`${httpServer.url}${TES}/tasks`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(echo(['cat', '/data/slow.txt'], { inputs: [{ path: '/data/slow.txt', url: `http://127.0.0.1:${port}/x` }] })),
    });
    const { id } = (await answer.json()) as { id: string };
    await served;
    const get = async () => (await (await fetch(`${httpServer.url}${TES}/tasks/${id}?view=FULL`, { headers: { authorization: auth } })).json()) as any;
    assert.equal((await get()).state, 'INITIALIZING');
    release!();
    const deadline = Date.now() + 30_000;
    let task = await get();
    while (!['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR'].includes(task.state) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      task = await get();
    }
    assert.equal(task.state, 'COMPLETE', JSON.stringify(task.logs));
    assert.equal(task.logs[0].logs[0].stdout, 'slow input\n');
  });

  it('QUEUED on an API replica, where no worker takes it; a cancel then ends it at once (CANCELED)', async () => {
    const api = await startTestServer({ role: 'api' });
    try {
      const dave = await api.account();
      const auth = basic(dave);
      const post = await fetch(`${api.url}${TES}/tasks`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify(echo(['true'])),
      });
      const { id } = (await post.json()) as { id: string };
      const get = async () => (await (await fetch(`${api.url}${TES}/tasks/${id}`, { headers: { authorization: auth } })).json()) as any;
      assert.equal((await get()).state, 'QUEUED');
      const cancel = await fetch(`${api.url}${TES}/tasks/${id}:cancel`, { method: 'POST', headers: { authorization: auth } });
      assert.equal(cancel.status, 200);
      assert.equal((await get()).state, 'CANCELED');
    } finally {
      await api.close();
    }
  });
});
