/**
 * TES inputs and outputs beyond data names (docs/ga4gh.md, "Inputs" and "Outputs"), against a real server whose
 * operator allows one input root (--tes-file-roots), one output root (--tes-output-roots) and one host
 * (--fetch-hosts 127.0.0.1, a local http server): file:// inputs and outputs, FILE and DIRECTORY both ways, http
 * inputs, wildcard outputs with path_prefix; and the refusals, each a 400 naming the field: a path outside the roots,
 * `..`, a symbolic link out of a root, a host not allowed. What a task makes cannot lead the server out either: a
 * symbolic link among its outputs is not followed, and a redirect to a host not allowed is not taken.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basic, ga4ghRequest, type Ga4ghAnswer } from '../helpers/ga4gh.js';
import { signedRequest } from '../helpers/raw.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const TES = '/ga4gh/tes/v1';
const ENDED = ['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR'];

let server: TestServer;
let alice: TestAccount;
let web: Server;
let port: number;
let inRoot: string;
let outRoot: string;
let outside: string;
let base: string;

const call = (method: string, path: string, body?: unknown): Promise<Ga4ghAnswer> =>
  ga4ghRequest(`${server.url}${TES}${path}`, method, basic(alice), body === undefined ? undefined : { json: body });

async function run(body: unknown): Promise<any> {
  const answer = await call('POST', '/tasks', body);
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const task = (await call('GET', `/tasks/${answer.json.id}?view=FULL`)).json;
    if (ENDED.includes(task.state)) return task;
    if (Date.now() > deadline) assert.fail(`task ${answer.json.id} is still ${task.state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function refused(body: unknown, field: RegExp): Promise<string> {
  const answer = await call('POST', '/tasks', body);
  assert.equal(answer.status, 400, JSON.stringify(answer.json));
  assert.equal(answer.json.status_code, 400);
  assert.match(answer.json.msg, field);
  return answer.json.msg as string;
}

const sh = (script: string, extra: Record<string, unknown> = {}) => ({ executors: [{ image: 'alpine', command: ['sh', '-c', script] }], ...extra });

before(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'gdflow-tes-files-')));
  inRoot = join(base, 'shared');
  outRoot = join(base, 'results');
  outside = join(base, 'private');
  for (const dir of [inRoot, outRoot, outside, join(inRoot, 'dir', 'sub')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(inRoot, 'reads.fq'), '@r1\nACGT\n+\nIIII\n');
  writeFileSync(join(inRoot, 'dir', 'a.txt'), 'a\n');
  writeFileSync(join(inRoot, 'dir', 'sub', 'b.txt'), 'b\n');
  writeFileSync(join(outside, 'secret.txt'), 'secret\n');
  symlinkSync(join(outside, 'secret.txt'), join(inRoot, 'escape.txt'));
  symlinkSync(join(outside, 'secret.txt'), join(inRoot, 'dir', 'link.txt'));
  symlinkSync(outside, join(outRoot, 'escape'));
  web = createServer((req, res) => {
    if (req.url === '/reads.fq') res.end('@web\nTTTT\n+\nIIII\n');
    else if (req.url === '/redirect') res.writeHead(302, { location: `http://localhost:${port}/reads.fq` }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  port = (web.address() as AddressInfo).port;
  server = await startTestServer({ tesFileRoots: inRoot, tesOutputRoots: outRoot, fetchHosts: '127.0.0.1' });
  alice = await server.account();
});
after(async () => {
  web?.closeAllConnections();
  web?.close();
  await server?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('TES: file:// and http(s) inputs', () => {
  it('a file:// FILE and DIRECTORY under the root and an http input of an allowed host are placed; a link in the directory is not followed', async () => {
    const task = await run(
      sh('cat /data/reads.fq /data/web.fq; find /data/dir -type f | sort; cat /data/dir/sub/b.txt', {
        inputs: [
          { url: `file://${inRoot}/reads.fq`, path: '/data/reads.fq' },
          { url: `file://${inRoot}/dir`, path: '/data/dir', type: 'DIRECTORY' },
          { url: `http://127.0.0.1:${port}/reads.fq`, path: '/data/web.fq' },
        ],
      }),
    );
    assert.equal(task.state, 'COMPLETE', JSON.stringify(task.logs));
    assert.equal(task.logs[0].logs[0].stdout, '@r1\nACGT\n+\nIIII\n@web\nTTTT\n+\nIIII\n/data/dir/a.txt\n/data/dir/sub/b.txt\nb\n');
  });

  it('refuses a path outside the roots, .., a symbolic link out of a root, a missing file, a wrong type and a host not allowed, naming inputs[i].url', async () => {
    const input = (url: string, type = 'FILE') =>
      sh('true', {
        inputs: [
          { url: 'gdflow:/unused', path: '/data/unused' },
          { url, path: '/data/x', type },
        ],
      });
    const outsideMsg = await refused(input(`file://${outside}/secret.txt`), /since inputs\[1\]\.url .* is not under a directory the operator allows/);
    assert.ok(!outsideMsg.includes('secret\n'));
    await refused(input(`file://${inRoot}/../private/secret.txt`), /since inputs\[1\]\.url .* not under a directory the operator allows/);
    await refused(input(`${inRoot}/../private/secret.txt`), /since inputs\[1\]\.url/);
    await refused(input(`file://${inRoot}/escape.txt`), /since inputs\[1\]\.url .* leads out of the directories the operator allows/);
    await refused(input(`file://${inRoot}/nothing.txt`), /since inputs\[1\]\.url .* does not exist/);
    await refused(input(`file://${inRoot}/dir`), /since inputs\[1\]\.url .* is a directory; type is FILE/);
    await refused(input(`http://localhost:${port}/reads.fq`), /since inputs\[1\]\.url .* does not fetch from that host \(--fetch-hosts: 127\.0\.0\.1\)/);
    await refused(input(`http://127.0.0.1:${port}/reads.fq`, 'DIRECTORY'), /since inputs\[1\]: an http\(s\) URL cannot be a DIRECTORY/);
  });

  it('an allowed host that redirects to a host not allowed fails the task (SYSTEM_ERROR), the redirect not taken', async () => {
    const task = await run(sh('cat /data/x', { inputs: [{ url: `http://127.0.0.1:${port}/redirect`, path: '/data/x' }] }));
    assert.equal(task.state, 'SYSTEM_ERROR');
    assert.ok(
      task.logs[0].system_logs.some((l: string) => /localhost.*does not fetch from that host/.test(l)),
      JSON.stringify(task.logs[0].system_logs),
    );
    assert.deepEqual(task.logs[0].logs, [], 'no executor ran');
  });
});

describe('TES: file:// and wildcard outputs', () => {
  it('a FILE and a DIRECTORY to file:// under the output root: written there, an OutputFileLog per file', async () => {
    const task = await run(
      sh('mkdir -p /data/out/d/e; echo one > /data/out/one.txt; echo two > /data/out/d/two.txt; echo three > /data/out/d/e/three.txt', {
        outputs: [
          { url: `file://${outRoot}/run1/one.txt`, path: '/data/out/one.txt' },
          { url: `file://${outRoot}/run1/d`, path: '/data/out/d', type: 'DIRECTORY' },
        ],
      }),
    );
    assert.equal(task.state, 'COMPLETE', JSON.stringify(task.logs));
    assert.equal(readFileSync(join(outRoot, 'run1/one.txt'), 'utf8'), 'one\n');
    assert.equal(readFileSync(join(outRoot, 'run1/d/e/three.txt'), 'utf8'), 'three\n');
    assert.deepEqual(
      task.logs[0].outputs.map((o: any) => [o.url, o.path, o.size_bytes]),
      [
        [`file://${outRoot}/run1/one.txt`, '/data/out/one.txt', '4'],
        [`file://${outRoot}/run1/d/e/three.txt`, '/data/out/d/e/three.txt', '6'],
        [`file://${outRoot}/run1/d/two.txt`, '/data/out/d/two.txt', '4'],
      ],
    );
    assert.deepEqual(readdirSync(join(outRoot, 'run1')).sort(), ['d', 'one.txt'], 'no temporary file is left');
  });

  it('wildcards: every match stored below url, named by what follows path_prefix, to the data store and to file://; links among the matches are not followed', async () => {
    const task = await run(
      sh(
        [
          'mkdir -p /data/out/s1 /data/out/s2/deep /data/out/s3',
          'echo 1 > /data/out/s1/x.bam; echo 2 > /data/out/s2/y.bam; echo 3 > /data/out/s2/deep/z.bam; echo no > /data/out/s1/x.txt',
          `ln -s ${outside}/secret.txt /data/out/s3/leak.bam`,
        ].join('; '),
        {
          outputs: [
            { url: 'gdflow:/wild/bams', path: '/data/out/*/*.bam', path_prefix: '/data/out' },
            { url: `file://${outRoot}/wild`, path: '/data/out/s?', path_prefix: '/data/out/' },
            { url: 'gdflow:/wild/none', path: '/data/out/*.vcf' },
          ],
        },
      ),
    );
    assert.equal(task.state, 'COMPLETE', JSON.stringify(task.logs));
    assert.deepEqual(
      task.logs[0].outputs.map((o: any) => [o.url, o.path]),
      [
        ['gdflow:/wild/bams/s1/x.bam', '/data/out/s1/x.bam'],
        ['gdflow:/wild/bams/s2/y.bam', '/data/out/s2/y.bam'],
        [`file://${outRoot}/wild/s1/x.bam`, '/data/out/s1/x.bam'],
        [`file://${outRoot}/wild/s1/x.txt`, '/data/out/s1/x.txt'],
        [`file://${outRoot}/wild/s2/deep/z.bam`, '/data/out/s2/deep/z.bam'],
        [`file://${outRoot}/wild/s2/y.bam`, '/data/out/s2/y.bam'],
      ],
      'a pattern that matches nothing stores nothing; a directory that matches is stored whole',
    );
    assert.equal((await signedRequest(server.url, alice, 'GET', `/accounts/${alice.name}/data/wild/bams/s2/y.bam`)).text, '2\n');
    assert.equal(readFileSync(join(outRoot, 'wild/s2/deep/z.bam'), 'utf8'), '3\n');
    assert.equal(existsSync(join(outRoot, 'wild/s3')), false, 'the link (to a file outside) is not stored');
  });

  it('refuses an output outside the output root, through a symbolic link, or at the root itself, naming outputs[i].url', async () => {
    const output = (url: string) => sh('true', { outputs: [{ url, path: '/data/x' }] });
    await refused(output(`file://${outside}/x`), /since outputs\[0\]\.url .* not under a directory the operator allows \(--tes-output-roots/);
    await refused(output(`file://${outRoot}/../private/x`), /since outputs\[0\]\.url .* not under/);
    await refused(output(`file://${inRoot}/x`), /since outputs\[0\]\.url .* not under/);
    await refused(output(`file://${outRoot}/escape/x`), /since outputs\[0\]\.url .* goes through a symbolic link/);
    await refused(output(`file://${outRoot}`), /since outputs\[0\]\.url .* is an output root itself/);
    assert.deepEqual(readdirSync(outside), ['secret.txt']);
  });

  it('an output the task made a symbolic link is not followed: SYSTEM_ERROR, nothing written', async () => {
    const task = await run(sh(`ln -s ${outside}/secret.txt /data/out.txt`, { outputs: [{ url: `file://${outRoot}/leak.txt`, path: '/data/out.txt' }] }));
    assert.equal(task.state, 'SYSTEM_ERROR');
    assert.ok(
      task.logs[0].system_logs.some((l: string) => /symbolic link/.test(l)),
      JSON.stringify(task.logs[0].system_logs),
    );
    assert.equal(existsSync(join(outRoot, 'leak.txt')), false);
  });
});
