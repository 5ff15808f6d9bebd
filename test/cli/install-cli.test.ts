import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { repoRoot } from '../helpers/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'gdflow-bin-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/install-cli.sh (run by scripts/setup.sh)', () => {
  it('puts a gdflow that runs this checkout on the PATH', () => {
    const installed = spawnSync(join(repoRoot(), 'scripts', 'install-cli.sh'), [dir], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}` },
    });
    assert.equal(installed.status, 0, installed.stderr);
    // As a new shell would find it: by name, from another directory.
    const ran = spawnSync('gdflow', ['--version'], { encoding: 'utf8', cwd: tmpdir(), env: { ...process.env, PATH: `${dir}:/usr/bin:/bin` } });
    assert.equal(ran.status, 0, ran.stderr);
    assert.match(ran.stdout, /^\d+\.\d+\.\d+$/m);
  });
});
