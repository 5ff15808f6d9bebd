/**
 * stageRun (engine/deferred/staging.ts) on real directories: what a deferred (CWL or WDL) job's staged inputs become
 * on the host. The case that matters here: the server makes the copies, outside any sandbox, so a symbolic link an
 * earlier job wrote into its output directory must never lead it to copy a file no job may read.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { stageRun, StagingError, type StagingPlaces } from '../../src/engine/deferred/staging.js';

describe('stageRun', () => {
  let dir: string;
  let places: StagingPlaces;
  let output: string;
  let secret: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gdflow-staging-'));
    // A file of the server's that no job may read (outside every allowed root).
    secret = join(dir, 'server-only.txt');
    await writeFile(secret, 'not for jobs');
    // An earlier job's output directory, in the task's directory: a file, a subdirectory, and links out.
    const task = join(dir, 'task');
    output = join(task, 'earlier', 'out');
    await mkdir(join(output, 'sub'), { recursive: true });
    await writeFile(join(output, 'data.txt'), 'data');
    await writeFile(join(output, 'sub', 'leaf.txt'), 'leaf');
    await symlink(secret, join(output, 'leak'));
    await symlink(dir, join(output, 'sub', 'up'));
    places = { workDir: join(task, 'job', 'work'), inputsTree: join(task, 'job', 'inputs'), sandboxed: true, hostStagingRoot: '/', allowed: [task] };
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('a writable Directory is copied without its symbolic links (the server would follow them) and made writable', async () => {
    await stageRun([{ class: 'Directory', path: '/var/data/copy', location: pathToFileURL(output).href, writable: true }], places);
    const copy = join(places.workDir, 'copy');
    assert.deepEqual((await readdir(copy)).sort(), ['data.txt', 'sub']);
    assert.deepEqual(await readdir(join(copy, 'sub')), ['leaf.txt']);
    assert.equal(await readFile(join(copy, 'data.txt'), 'utf8'), 'data');
    assert.equal(statSync(join(copy, 'data.txt')).mode & 0o777, 0o644);
    assert.equal(statSync(join(copy, 'sub')).mode & 0o777, 0o755);
    assert.notEqual(statSync(join(copy, 'data.txt')).ino, statSync(join(output, 'data.txt')).ino, 'a copy, not a link');
  });

  it('a read-only Directory in the working directory is linked without its symbolic links', async () => {
    await stageRun([{ class: 'Directory', path: '/var/data/linked', location: pathToFileURL(output).href, writable: false }], places);
    const linked = join(places.workDir, 'linked');
    assert.deepEqual((await readdir(linked)).sort(), ['data.txt', 'sub']);
    assert.equal(statSync(join(linked, 'data.txt')).ino, statSync(join(output, 'data.txt')).ino, 'a hard link');
  });

  it('a location whose real path leaves the allowed roots is refused, also through a link', async () => {
    await assert.rejects(
      stageRun([{ class: 'File', path: '/var/data/direct', location: pathToFileURL(secret).href, writable: true }], places),
      (error: Error) => error instanceof StagingError && /outside the files this task may read/.test(error.message),
    );
    await assert.rejects(
      stageRun([{ class: 'File', path: '/var/data/through', location: pathToFileURL(join(output, 'leak')).href, writable: true }], places),
      (error: Error) => error instanceof StagingError && /outside the files this task may read/.test(error.message),
    );
  });
});
