/**
 * A deferred run's roots (engine/deferred/run-roots.ts: a WDL task's disks at mount points): each made as an empty
 * directory in the job's working directory, and only the outermost bound, a root inside another being in it already.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { makeRunRoots, RUN_ROOTS_DIR, rootHostPath } from '../../src/engine/deferred/run-roots.js';

describe('run roots', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'gdflow-run-roots-'));
  after(() => rmSync(workDir, { recursive: true, force: true }));

  it('makes every root in the working directory and binds the outermost ones', async () => {
    const binds = await makeRunRoots(['/mnt/outputs', '/scratch', '/mnt/outputs/tmp', '/mnt/other'], workDir);
    assert.deepEqual(binds, [
      { hostPath: join(workDir, RUN_ROOTS_DIR, 'mnt/other'), sandboxPath: '/mnt/other' },
      { hostPath: join(workDir, RUN_ROOTS_DIR, 'mnt/outputs'), sandboxPath: '/mnt/outputs' },
      { hostPath: join(workDir, RUN_ROOTS_DIR, 'scratch'), sandboxPath: '/scratch' },
    ]);
    for (const path of ['/mnt/outputs', '/scratch', '/mnt/outputs/tmp', '/mnt/other']) {
      assert.ok(statSync(rootHostPath(workDir, path)).isDirectory(), path);
    }
    assert.deepEqual(readdirSync(workDir), [RUN_ROOTS_DIR], 'nothing else is made');
    assert.deepEqual(readdirSync(rootHostPath(workDir, '/mnt/outputs/tmp')), [], 'empty');
  });

  it('a root that only shares a prefix with another is no root inside it', async () => {
    const binds = await makeRunRoots(['/mnt/a', '/mnt/ab'], workDir);
    assert.deepEqual(
      binds.map((bind) => bind.sandboxPath),
      ['/mnt/a', '/mnt/ab'],
    );
  });
});
