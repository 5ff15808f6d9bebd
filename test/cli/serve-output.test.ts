import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { cliCommand, waitForExit } from '../helpers/process.js';
import { repoRoot } from '../helpers/paths.js';
import { cli } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'gdflow-stdout-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('gdflow serve: stdout', () => {
  it('is JSON lines only, from start to shutdown', async () => {
    const [command, ...prefix] = cliCommand();
    const child = spawn(command!, [...prefix, 'serve', '--port', '0', '--data-dir', join(dir, 'data'), '--log-level', 'info'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`gdflow serve exited with ${code}: ${stdout}`)));
    });
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.equal((await fetch(`${url}/no/such/route`)).status, 404);
    child.kill('SIGTERM');
    await waitForExit(child);
    const lines = stdout.split('\n').filter((line) => line !== '');
    const records = lines.map((line) => {
      try {
        return JSON.parse(line) as { level: number; msg: string; url?: string; status?: number };
      } catch {
        assert.fail(`not a JSON line on stdout: ${line}`);
      }
    });
    assert.match(records[0]!.msg, /^gdflow listening on http:\/\//);
    assert.equal(records[0]!.url, url);
    assert.ok(records.some((r) => r.msg === 'request' && r.status === 404));
    assert.ok(records.some((r) => /SIGTERM: shutting down/.test(r.msg)));
  });
});

/** `gdflow serve` (the built CLI) until its listening line: the line's JSON record, and the child to stop. */
async function serve(args: string[]): Promise<{ record: Record<string, unknown>; url: string; stop: () => Promise<void> }> {
  const [command, ...prefix] = cliCommand();
  const child = spawn(command!, [...prefix, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const record = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const line = output.split('\n').find((l) => l.includes('listening on'));
      if (line) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.once('exit', (code) => reject(new Error(`gdflow serve exited with ${code}: ${output}`)));
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await waitForExit(child);
  };
  return { record, url: String(record.url), stop };
}

describe('gdflow serve: start-up', () => {
  const version = (JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { version: string }).version;

  it('with the port taken, says so first (naming --port and the address) and creates nothing', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const dataDir = join(dir, 'never-created');
      const database = join(dir, 'never-created.db');
      for (const extra of [[], ['--database', `sqlite:${database}`]]) {
        const result = await cli(['serve', '--port', String(port), '--data-dir', dataDir, ...extra]);
        assert.equal(result.status, 2, result.stderr);
        assert.equal(result.stdout, '', 'nothing on stdout: the server never started');
        assert.match(result.stderr, new RegExp(`^gdflow: cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is already in use`));
        assert.match(result.stderr, /--port/);
        assert.equal(existsSync(dataDir), false, 'no data directory');
        assert.equal(existsSync(database), false, 'no database file');
      }
    } finally {
      holder.close();
    }
  });

  it('--trust-proxy takes proxy addresses and ranges only, and a bad one is a configuration error (exit code 2)', async () => {
    for (const [args, env] of [
      [['--trust-proxy', 'true'], {}],
      [[], { GDFLOW_TRUST_PROXY: '127.0.0.1, 10.0.0.0/33' }],
      [['--trust-proxy', 'proxy.example.org'], {}],
    ] as const) {
      const result = await cli(['serve', '--port', '0', '--data-dir', join(dir, 'never-created'), ...args], { env });
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /trustProxy: '(true|10\.0\.0\.0\/33|proxy\.example\.org)' is not an IP address, a CIDR range/);
      assert.equal(existsSync(join(dir, 'never-created')), false);
    }
  });

  it('the listening line and /healthz name the role, executor, store kind and version', async () => {
    const all = await serve(['--data-dir', join(dir, 'health'), '--executor', 'host', '--log-level', 'warn']);
    try {
      const { record } = all;
      assert.equal(record.role, 'all');
      assert.equal(record.executor, 'host');
      assert.equal(record.store, 'sqlite');
      assert.equal(record.database, join(dir, 'health', 'gdflow.db'));
      assert.equal(record.version, version);
      assert.match(String(record.msg), new RegExp(`\\(role all, executor host, store sqlite ${join(dir, 'health', 'gdflow.db')}, gdflow ${version}, worker `));
      const health = (await (await fetch(`${all.url}/healthz`)).json()) as Record<string, unknown>;
      assert.equal(health.status, 'ok');
      assert.equal(health.role, 'all');
      assert.equal(health.executor, 'host');
      assert.equal(health.store, 'sqlite');
      assert.equal(health.version, version);
      assert.equal(health.worker, record.worker);
    } finally {
      await all.stop();
    }
    // An API replica runs no jobs: no executor; a worker serves /healthz alone, and names its own.
    const api = await serve(['--data-dir', join(dir, 'health'), '--role', 'api', '--log-level', 'warn']);
    const worker = await serve(['--data-dir', join(dir, 'health'), '--role', 'worker', '--executor', 'host', '--log-level', 'warn']);
    try {
      assert.match(String(api.record.msg), /\(role api, executor none, store sqlite /);
      assert.deepEqual(await (await fetch(`${api.url}/healthz`)).json(), { status: 'ok', role: 'api', version, executor: null, store: 'sqlite' });
      const health = (await (await fetch(`${worker.url}/healthz`)).json()) as Record<string, unknown>;
      assert.deepEqual([health.role, health.executor, health.store, health.version], ['worker', 'host', 'sqlite', version]);
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
    }
  });
});
