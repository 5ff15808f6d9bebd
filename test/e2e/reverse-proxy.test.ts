import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { Client } from '../../src/client/client.js';
import { Transport } from '../../src/client/transport.js';
import { fetchTrusting } from '../../src/client/trusted-fetch.js';
import { cli, copyWorkflowYaml, writeFile, type CliResult } from '../cli/support.js';
import { MissingComponent, skipWithout } from '../helpers/components.js';
import { freePort, makeCertificates, nginxUnavailable, startNginx, type Certificates, type Nginx } from '../helpers/nginx.js';
import { repoRoot } from '../helpers/paths.js';
import { startServerProcess, waitForExit, type ServerChild } from '../helpers/process.js';

/**
 * gdflow as deploy/ sets it up: `gdflow serve` behind a real nginx that terminates TLS with a certificate of a
 * private CA (deploy/nginx/gdflow.conf, with test ports and paths), the built CLI and the SDK trusting that CA, and
 * the server believing X-Forwarded-* from the proxy's address only (--trust-proxy).
 *
 * nginx connects to gdflow from 127.0.0.3 (proxy_bind), the clients from 127.0.0.1: so the server can tell the
 * proxy's address from the client's, and a client's own X-Forwarded-* headers sent straight to it are ignored.
 */
const PROXY_ADDRESS = '127.0.0.3';
const SPOOFED = { 'X-Forwarded-For': '198.51.100.7', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example' };

const dir = mkdtempSync(join(tmpdir(), 'gdflow-proxy-'));
let server: ServerChild | undefined;
let nginx: Nginx | undefined;
let certs: Certificates;
let key: { access_key_id: string; access_key_secret: string };
let env: NodeJS.ProcessEnv;

/** deploy/nginx/gdflow.conf with this test's upstream, port and certificate, and the proxy's own source address. */
function siteConfig(upstreamPort: number, port: number): string {
  const shipped = readFileSync(join(repoRoot(), 'deploy', 'nginx', 'gdflow.conf'), 'utf8');
  const replace = (text: string, from: RegExp, to: string): string => {
    assert.match(text, from, `deploy/nginx/gdflow.conf no longer has ${from}`);
    return text.replace(from, to);
  };
  let site = shipped.slice(0, shipped.indexOf('# Plain HTTP only redirects'));
  site = replace(site, /server 127\.0\.0\.1:8080;/, `server 127.0.0.1:${upstreamPort};`);
  site = replace(site, /listen 443 ssl;/, `listen 127.0.0.1:${port} ssl;`);
  site = replace(site, /\n\s*listen \[::\]:443 ssl;/, '');
  site = replace(site, /ssl_certificate {5}\S+;/, `ssl_certificate ${certs.cert};`);
  site = replace(site, /ssl_certificate_key \S+;/, `ssl_certificate_key ${certs.key};`);
  return replace(site, /proxy_pass http:\/\/gdflow_api;/, `proxy_pass http://gdflow_api;\n        proxy_bind ${PROXY_ADDRESS};`);
}

interface AuditRow {
  actor_account: string | null;
  operation: string;
  target: string;
  client_address: string | null;
  outcome: string;
}

async function audit(): Promise<AuditRow[]> {
  const result = await cli(['admin', 'audit', '--data-dir', join(dir, 'data'), '--json']);
  assert.equal(result.status, 0, result.stderr);
  return result.json() as AuditRow[];
}

const run = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> => cli(args, { env: { ...env, ...extra }, cwd: dir });

describe('gdflow behind nginx with TLS (deploy/nginx/gdflow.conf)', { skip: skipWithout(nginxUnavailable()) }, () => {
  before(async () => {
    const missing = nginxUnavailable();
    if (missing) throw new MissingComponent(missing);
    certs = makeCertificates(join(dir, 'tls'));
    server = await startServerProcess(join(dir, 'data'), ['--trust-proxy', PROXY_ADDRESS, '--cpus', '2']);
    const upstreamPort = Number(new URL(server.url).port);
    const port = await freePort();
    nginx = await startNginx(join(dir, 'nginx'), siteConfig(upstreamPort, port), port, certs.ca);
    const created = await cli(['admin', 'create-account', 'proxied', '--data-dir', join(dir, 'data'), '--json']);
    assert.equal(created.status, 0, created.stderr);
    key = created.json();
    env = {
      GDFLOW_CONFIG_FILE: join(dir, 'no-client-config.yml'),
      GDFLOW_ENDPOINT: nginx.url,
      GDFLOW_ACCESS_KEY_ID: key.access_key_id,
      GDFLOW_ACCESS_KEY_SECRET: key.access_key_secret,
      GDFLOW_CA_FILE: certs.ca,
    };
  });

  after(async () => {
    await nginx?.stop();
    if (server) {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('the CLI reaches gdflow over https only when it trusts the CA (GDFLOW_CA_FILE, --ca-file, the config file)', async () => {
    const untrusted = await run(['tool', 'ls'], { GDFLOW_CA_FILE: '' });
    assert.equal(untrusted.status, 3, untrusted.stderr);
    assert.match(untrusted.stderr, /certificate/);
    const byEnv = await run(['config', 'check', '--json']);
    assert.equal(byEnv.status, 0, byEnv.stderr);
    assert.equal(byEnv.json().account_name, 'proxied');
    const byFlag = await run(['tool', 'ls', '--ca-file', certs.ca, '--json'], { GDFLOW_CA_FILE: '' });
    assert.equal(byFlag.status, 0, byFlag.stderr);
    const set = await run(['config', 'set', '--ca-file', certs.ca], { GDFLOW_CA_FILE: '' });
    assert.equal(set.status, 0, set.stderr);
    const byFile = await run(['tool', 'ls', '--json'], { GDFLOW_CA_FILE: '' });
    assert.equal(byFile.status, 0, byFile.stderr);
    const notPem = await run(['tool', 'ls'], { GDFLOW_CA_FILE: join(dir, 'data', 'gdflow.db') });
    assert.equal(notPem.status, 2, notPem.stderr);
    assert.match(notPem.stderr, /holds no PEM certificate.*GDFLOW_CA_FILE/);
  });

  it('runs a real task through nginx; the server sees the client (audit log) and links say https and the public host', async () => {
    const tool = `app:
  name: proxied
  cmd_template: 'echo through nginx; cp {{ inputs.reads[0].path }} {{ outputs.out[0].path }}'
  inputs: {reads: {type: file, formats: [fastq], minitems: 1, maxitems: 1, required: true}}
  outputs: {out: {type: file, formats: fastq, minitems: 1, maxitems: 1, required: true}}
  parameters: {threads: {type: integer, default: 1}, label: {type: string, default: x}}
  requirements: {container: {image: 'debian:bookworm', type: docker}, resources: {cpu: 1, mem: 256m, disk: 256m, network: false}}
`;
    assert.equal((await run(['tool', 'create', '-f', writeFile(dir, 'tool.yml', tool)])).status, 0);
    assert.equal((await run(['workflow', 'create', '-f', writeFile(dir, 'wf.yml', copyWorkflowYaml('proxied', 'proxiedwf', 'proxied'))])).status, 0);
    const reads = '@r1\nACGT\n+\nIIII\n';
    const put = await run(['data', 'put', writeFile(dir, 'in.fastq', reads), '/reads/in.fastq']);
    assert.equal(put.status, 0, put.stderr);
    const template = parse((await run(['workflow', 'getparam', 'proxiedwf'])).stdout);
    template.name = 'behind_nginx';
    template.Inputs.load_reads.data[0].name = '/reads/in.fastq';
    template.Outputs.save.data[0].name = '/results/out.fastq';
    const ran = await run(['workflow', 'run', 'proxiedwf', '-p', writeFile(dir, 'params.yml', stringify(template)), '--wait', '--json'], {});
    assert.equal(ran.status, 0, ran.stderr);
    const taskId = ran.json().task_id as string;
    assert.equal((await run(['data', 'get', '/results/out.fastq', '-'])).stdout, reads);
    // The log is read from its Log_downloadURL: through nginx, over https, with the CA.
    const logs = await run(['task', 'logs', taskId, 'copy']);
    assert.equal(logs.status, 0, logs.stderr);
    assert.match(logs.stdout, /through nginx/);

    // The SDK, with its ca option: the link the server made uses the scheme and host the client used.
    const client = new Client({
      endpoint: nginx!.url,
      accessKeyId: key.access_key_id,
      accessKeySecret: key.access_key_secret,
      ca: readFileSync(certs.ca),
      retries: 0,
    });
    const copy = (await client.listJobs(taskId)).jobs.find((j) => j.node_id === 'copy')!;
    const link = (await client.getJob(taskId, copy.job_id)).Log_downloadURL;
    assert.ok(link.startsWith(`${nginx!.url}/logs/`), link);
    assert.match(await client.getJobLog(taskId, copy.job_id, 'stdout'), /through nginx/);

    // Every write through the proxy is the client's (127.0.0.1), not the proxy's (127.0.0.3).
    const rows = (await audit()).filter((r) => r.actor_account === 'proxied');
    const operations = new Set(rows.map((r) => r.operation));
    for (const operation of ['CreateTool', 'CreateWorkflow', 'PutData', 'ActivateWorkflow'])
      assert.ok(operations.has(operation), `${operation} in ${[...operations].join(', ')}`);
    assert.deepEqual([...new Set(rows.map((r) => r.client_address))], ['127.0.0.1']);
  });

  it('ignores forwarded headers from an address that is not the proxy, and a client cannot forge them through the proxy', async () => {
    const credentials = { accessKeyId: key.access_key_id, accessKeySecret: key.access_key_secret };
    const direct = new Transport({ endpoint: server!.url, credentials, retries: 0 });
    const viaProxy = new Transport({ endpoint: nginx!.url, credentials, retries: 0, fetch: fetchTrusting(readFileSync(certs.ca)) });
    const base = '/accounts/proxied/projects/default/tools/';
    await direct.json('POST', base, { json: { tool_name: 'spoofed_direct' }, headers: SPOOFED });
    await viaProxy.json('POST', base, { json: { tool_name: 'spoofed_via_proxy' }, headers: SPOOFED });
    const rows = await audit();
    const address = (tool: string) => rows.find((r) => r.operation === 'CreateTool' && r.target.includes(tool))?.client_address;
    assert.equal(address('spoofed_direct'), '127.0.0.1', 'straight to gdflow: the socket peer, whatever the headers say');
    assert.equal(address('spoofed_via_proxy'), '127.0.0.1', 'through nginx: the address nginx saw, not the one the client claimed');

    // Links made for a direct request: plain http and the server's own address, not the forged scheme and host.
    const tasks = await direct.json<{ task_list: Array<{ task_id: string }> }>('GET', '/accounts/proxied/projects/default/tasks/');
    const taskId = tasks.task_list[0]!.task_id;
    const jobs = await direct.json<{ jobs: Array<{ job_id: string; node_id: string }> }>('GET', `/accounts/proxied/projects/default/tasks/${taskId}/jobs/`);
    const copy = jobs.jobs.find((j) => j.node_id === 'copy')!;
    const info = await direct.json<{ Log_downloadURL: string }>('GET', `/accounts/proxied/projects/default/tasks/${taskId}/jobs/${copy.job_id}/`, {
      headers: SPOOFED,
    });
    assert.ok(info.Log_downloadURL.startsWith(`${server!.url}/logs/`), info.Log_downloadURL);
  });
});
