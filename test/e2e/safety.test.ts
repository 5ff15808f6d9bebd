import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rejectsWith } from '../helpers/assert-api.js';
import { E2E_EXECUTORS } from '../helpers/executors.js';
import { rawRequest } from '../helpers/raw.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, download, upload, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, toolId } from '../helpers/workflows.js';

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;

const requirements = { container: { image: 'debian:bookworm' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } };

before(async () => {
  server = await startTestServer();
  alice = await server.account();
  bob = await server.account();
});
after(async () => server.close());

/** Every file under a directory, recursively (to look for files an injection might have made). */
function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true }).map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

for (const executor of E2E_EXECUTORS)
  describe(`command injection through parameter values and file names fails harmlessly: ${executor.name}`, { skip: executor.skip }, () => {
    /** The default server runs on bwrap; a container executor gets a server of its own. */
    let target: TestServer;
    let alice: TestAccount;
    const requirements = { container: { image: executor.image }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } };

    const HOSTILE = [
      '$(touch /var/data/PWNED)',
      '`touch /var/data/PWNED`',
      '; touch /var/data/PWNED',
      "' ; touch /var/data/PWNED ; '",
      '" ; touch /var/data/PWNED ; "',
      '\n touch /var/data/PWNED',
      '&& touch /var/data/PWNED',
      '| touch /var/data/PWNED',
      '${IFS}touch${IFS}/var/data/PWNED',
      '> /var/data/PWNED',
    ];

    before(async () => {
      executor.prepare();
      target = executor.name === 'bwrap' ? server : await startTestServer(executor.config);
      alice = await target.account();
      // The parameter in four shell contexts: bare, double-quoted, single-quoted, inside $( ).
      await registerTool(alice, 'echoer', {
        cmd_template:
          'printf "%s\\n" {{ parameters.label }} > {{ outputs.out[0].path }}; printf "%s\\n" "{{ parameters.label }}" >> {{ outputs.out[0].path }}; ' +
          "printf '%s\\n' '{{ parameters.label }}' >> {{ outputs.out[0].path }}; echo \"$(printf '%s' {{ parameters.label }})\" >> {{ outputs.out[0].path }}",
        outputs: { out: { type: 'file', formats: 'txt', required: true } },
        parameters: { label: { type: 'string', default: 'x' } },
        requirements,
      });
      const echoer = await toolId(alice, 'echoer', 1);
      await createWorkflow(alice, 'echo_flow', {
        nodelist: [
          { node_id: 'echo', app_id: echoer, outputs: { out: [{ enid: 'o' }] }, parameters: { label: { value: 'x', variable: true } } },
          { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'o' } } },
        ],
      });
    });

    for (const [i, value] of HOSTILE.entries()) {
      it(`parameter value ${JSON.stringify(value)} reaches the program as one literal argument`, async () => {
        const { parameter } = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/echo_flow/'), { query: { workflow_version: 1 } });
        parameter.Parameters.echo.parameters.label.value = value;
        parameter.Outputs.save.data[0].name = `/injection/out${i}.txt`;
        const { task_id } = await activate(alice, { workflow_name: 'echo_flow', workflow_version: 1, parameters: parameter });
        const task = await waitForTask(alice, task_id);
        assert.equal(task.status, 'succeeded', task.reason);
        const output = await download(alice, `/injection/out${i}.txt`);
        assert.equal(output, `${value}\n${value}\n${value}\n${value}\n`, 'every context received the exact value');
        assert.deepEqual(
          allFiles(join(target.dataDir, 'tasks', task_id)).filter((f) => f.includes('PWNED')),
          [],
          'no PWNED file was created',
        );
      });
    }

    it('a hostile data name is an input file name, never shell code', async () => {
      await registerTool(alice, 'counter', {
        cmd_template: 'wc -c < {{ inputs.src[0].path }} > {{ outputs.out[0].path }}; ls /var/data/inputs/src >> {{ outputs.out[0].path }}',
        inputs: { src: { type: 'file', formats: ['txt'], required: true } },
        outputs: { out: { type: 'file', formats: 'txt', required: true } },
        requirements,
      });
      const counter = await toolId(alice, 'counter', 1);
      await createWorkflow(alice, 'count_flow', {
        nodelist: [
          { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
          { node_id: 'count', app_id: counter, inputs: { src: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'o' }] } },
          { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'o' } }, parameters: { name: { value: '/injection/count.txt' } } },
        ],
      });
      const name = '/evil/$(touch PWNED);`touch PWNED2` \'q\' "d".txt';
      await upload(alice, name, 'abc');
      const { parameter } = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/count_flow/'), { query: { workflow_version: 1 } });
      parameter.Inputs.load.data[0].name = name;
      const { task_id } = await activate(alice, { workflow_name: 'count_flow', workflow_version: 1, parameters: parameter });
      const task = await waitForTask(alice, task_id);
      assert.equal(task.status, 'succeeded', task.reason);
      const [count, listed] = (await download(alice, '/injection/count.txt')).trim().split('\n');
      assert.equal(count, '3');
      assert.match(listed!, /^[A-Za-z0-9._-]+$/, 'the staged file name is sanitised');
      assert.deepEqual(
        allFiles(join(target.dataDir, 'tasks', task_id)).filter((f) => f.includes('PWNED')),
        [],
      );
    });

    it('a file path in a command substitution inside shell arithmetic is a quoted argument: PutTool, the workflow and the task all accept it', async () => {
      // issue 22: this template passed PutTool and the workflow, then every task was refused ("used inside shell arithmetic").
      await registerTool(alice, 'quarter', {
        cmd_template: 'echo $(( $(wc -l < {{ inputs.reads[0].path }}) / 4 )) > {{ outputs.out[0].path }}',
        inputs: { reads: { type: 'file', formats: ['fq'], required: true } },
        outputs: { out: { type: 'file', formats: 'txt', required: true } },
        requirements,
      });
      await createWorkflow(alice, 'quarter_flow', {
        nodelist: [
          { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
          { node_id: 'count', app_id: await toolId(alice, 'quarter', 1), inputs: { reads: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'o' }] } },
          { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'o' } }, parameters: { name: { value: '/arith/records.txt' } } },
        ],
      });
      const name = '/arith/$(touch PWNED) `touch PWNED2` r.fq';
      await upload(alice, name, 'a\nb\nc\nd\ne\nf\ng\nh\n');
      const { parameter } = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/quarter_flow/'), { query: { workflow_version: 1 } });
      parameter.Inputs.load.data[0].name = name;
      const { task_id } = await activate(alice, { workflow_name: 'quarter_flow', workflow_version: 1, parameters: parameter });
      const task = await waitForTask(alice, task_id);
      assert.equal(task.status, 'succeeded', task.reason);
      assert.equal(await download(alice, '/arith/records.txt'), '2\n', 'eight lines are two FASTQ records');
      assert.deepEqual(
        allFiles(join(target.dataDir, 'tasks', task_id)).filter((f) => f.includes('PWNED')),
        [],
      );
    });

    after(async () => {
      if (target !== server) await target?.close();
    });
  });

describe('a job cannot hand the next one a host file', () => {
  it("refuses an upstream output that is a symbolic link out of its job's directory", async () => {
    const secret = join(server.dataDir, 'host-secret.txt');
    writeFileSync(secret, 'not for jobs\n');
    await registerTool(alice, 'linker', {
      cmd_template: `ln -s ${secret} {{ outputs.out[0].path }}`,
      outputs: { out: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    await registerTool(alice, 'reader', {
      cmd_template: 'cat {{ inputs.src[0].path }} > {{ outputs.out[0].path }}',
      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
      outputs: { out: { type: 'file', formats: 'txt', required: true } },
      requirements,
    });
    await createWorkflow(alice, 'link_flow', {
      nodelist: [
        { node_id: 'link', app_id: await toolId(alice, 'linker', 1), outputs: { out: [{ enid: 'l' }] } },
        { node_id: 'read', app_id: await toolId(alice, 'reader', 1), inputs: { src: [{ enid: 'l' }] }, outputs: { out: [{ enid: 'r' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'r' } }, parameters: { name: { value: '/links/read.txt' } } },
      ],
    });
    const { parameter } = await alice.api.json<any>('GET', projectPath(alice.name, 'executable-workflows/link_flow/'), { query: { workflow_version: 1 } });
    const { task_id } = await activate(alice, { workflow_name: 'link_flow', workflow_version: 1, parameters: parameter });
    const task = await waitForTask(alice, task_id);
    assert.equal(task.status, 'failed');
    assert.match(task.reason, /node read \(reader\) failed: input link's .* is a symbolic link out of its job's directory/);
  });
});

describe('the data store cannot be escaped', () => {
  it('refuses .. segments, however they are spelled, and answers JSON', async () => {
    const sign = { id: alice.accessKeyId, secret: alice.accessKeySecret };
    for (const target of [
      `/accounts/${alice.name}/data/a/%2e%2e/%2e%2e/etc/passwd`,
      `/accounts/${alice.name}/data/%2E%2E/x`,
      `/accounts/${alice.name}/data/a/../../b`,
    ]) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await rawRequest(server.url, {
          method,
          target,
          sign,
          ...(method === 'PUT' ? { body: 'x', headers: { 'Content-Type': 'text/plain' } } : {}),
        });
        assert.ok(response.status >= 400 && response.status < 500, `${method} ${target}: ${response.status}`);
        assert.ok(response.json().error_code, `${method} ${target} answers a JSON error`);
      }
    }
    assert.equal(existsSync('/etc/passwd.gdflow-test'), false);
  });

  it('refuses to follow a symlink planted in the store', async () => {
    await upload(alice, '/real/file.txt', 'mine');
    const accountDir = join(server.dataDir, 'store', alice.name);
    symlinkSync('/etc', join(accountDir, 'etclink'));
    mkdirSync(join(server.dataDir, 'store', bob.name), { recursive: true });
    writeFileSync(join(server.dataDir, 'store', bob.name, 'secret.txt'), 'bob only');
    symlinkSync(join(server.dataDir, 'store', bob.name), join(accountDir, 'bobs'));
    await rejectsWith(alice.api.send('GET', `/accounts/${alice.name}/data/etclink/passwd`), 400, 'InvalidParameter', 'symbolic link');
    await rejectsWith(alice.api.send('GET', `/accounts/${alice.name}/data/bobs/secret.txt`), 400, 'InvalidParameter', 'symbolic link');
    await rejectsWith(
      alice.api.send('PUT', `/accounts/${alice.name}/data/etclink/evil`, { body: Buffer.from('x'), contentType: 'text/plain' }),
      400,
      'InvalidParameter',
    );
    assert.equal(existsSync('/etc/evil'), false);
  });

  it("keeps accounts' data apart and lets everyone read public data", async () => {
    await upload(bob, '/private/b.txt', 'bob data');
    await rejectsWith(alice.api.send('GET', `/accounts/${bob.name}/data/private/b.txt`), 403, 'AccessDenied');
    await rejectsWith(
      alice.api.send('PUT', `/accounts/${bob.name}/data/private/b.txt`, { body: Buffer.from('overwritten'), contentType: 'text/plain' }),
      403,
      'AccessDenied',
    );
    await rejectsWith(alice.api.send('DELETE', `/accounts/${bob.name}/data/private/b.txt`), 403, 'AccessDenied');
    assert.equal(await download(bob, '/private/b.txt'), 'bob data');
    await rejectsWith(alice.api.send('PUT', '/accounts/public/data/x.txt', { body: Buffer.from('x'), contentType: 'text/plain' }), 403, 'AccessDenied');
  });

  it('uploads atomically, checks Content-MD5, lists and deletes', async () => {
    const put = await upload(alice, '/dir/one.txt', 'one');
    assert.deepEqual(Object.keys(put).sort(), ['md5', 'name', 'size']);
    assert.equal(put.name, `${alice.name}:/dir/one.txt`);
    await upload(alice, '/dir/two.txt', 'two');
    await upload(alice, '/dir/one.txt', 'one again');
    assert.equal(await download(alice, '/dir/one.txt'), 'one again');
    await rejectsWith(
      alice.api.send('PUT', `/accounts/${alice.name}/data/dir/bad.txt`, {
        body: Buffer.from('x'),
        contentType: 'text/plain',
        headers: { 'Content-MD5': '1B2M2Y8AsgTpgAmY7PhCfg==' },
      }),
      400,
      'InvalidDigest',
    );
    const list = await alice.api.json<any>('GET', `/accounts/${alice.name}/data/`, { query: { prefix: '/dir/' } });
    assert.deepEqual(
      list.items.map((i: any) => [i.name, i.size]),
      [
        [`${alice.name}:/dir/one.txt`, 9],
        [`${alice.name}:/dir/two.txt`, 3],
      ],
    );
    assert.equal((await alice.api.send('DELETE', `/accounts/${alice.name}/data/dir/two.txt`)).status, 200);
    await rejectsWith(alice.api.send('GET', `/accounts/${alice.name}/data/dir/two.txt`), 404, 'DataNotFound');
  });
});
