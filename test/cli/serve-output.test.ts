import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { cliCommand, waitForExit } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'gdflow-stdout-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('gdflow serve: stdout', () => {
  it('is JSON lines only, from start to shutdown', async () => {
    const [command, ...prefix] = cliCommand();
    const child = spawn(command!, [...prefix, 'serve', '--port', '0', '--data-dir', join(dir, 'data'), '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
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
