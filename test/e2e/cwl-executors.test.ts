/**
 * CWL runs on the other executors (docs/cwl.md, "A CommandLineTool's run"): the host executor, which has no sandbox
 * and stages inputs at host paths; podman, which runs a DockerRequirement's image (the repository's tiny busybox
 * image) with inputs bound in the inputs area; Slurm with podman on its node (a throwaway single-node cluster). The same tool on each: a Directory input copied with `cp -r`, a File on
 * stdin, an InitialWorkDir literal, an environment variable, a glob of the outdir.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipWithout } from '../helpers/components.js';
import { ServedAccount } from '../helpers/process.js';
import { slurmUnavailable, startSlurm } from '../helpers/slurm.js';
import { ensureTinyImage, skipWithoutRuntime, TINY_IMAGE } from '../helpers/containers.js';
import { jobsOf, readOutput, runCwl, uploadFile, waitForCwlRun } from '../helpers/cwl-runs.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { upload } from '../helpers/tasks.js';

/** What the tool writes: the listing of its copy of the Directory, its stdin, its literal and its variable. */
function tool(image?: string) {
  return {
    cwlVersion: 'v1.2',
    class: 'CommandLineTool',
    requirements: {
      InitialWorkDirRequirement: { listing: [{ entryname: 'note.txt', entry: 'a literal\n' }] },
      EnvVarRequirement: { envDef: { GREETING: 'hello from $(inputs.who)' } },
      ShellCommandRequirement: {},
      ...(image ? { DockerRequirement: { dockerPull: image } } : {}),
    },
    inputs: {
      dir: { type: 'Directory', inputBinding: { position: 1 } },
      text: 'File',
      who: 'string',
    },
    stdin: '$(inputs.text.path)',
    arguments: [
      { position: 0, valueFrom: 'cp -r', shellQuote: false },
      {
        position: 2,
        valueFrom:
          'copy && ls copy > listing.txt && cat > stdin.txt && cat note.txt >> stdin.txt && echo "$GREETING" > env.txt && ' +
          'grep "^ID=" /etc/os-release > os.txt',
        shellQuote: false,
      },
    ],
    outputs: {
      copy: { type: 'Directory', outputBinding: { glob: 'copy' } },
      texts: { type: 'File[]', outputBinding: { glob: '*.txt' } },
    },
  };
}

async function runOn(account: TestAccount, prefix: string, image?: string): Promise<void> {
  await upload(account, `${prefix}/dir/a.txt`, 'A');
  await upload(account, `${prefix}/dir/sub/b.txt`, 'B');
  const text = await uploadFile(account, `${prefix}/in.txt`, 'from stdin\n');
  const dir = { class: 'Directory', location: `gdflow:${prefix.slice(1)}/dir/` };
  const started = await runCwl(account, { document: tool(image), job: { dir, text, who: 'gdflow' } });
  const run = await waitForCwlRun(account, started.task_id);
  assert.equal(run.status, 'succeeded', run.reason ?? '');
  const texts = new Map((run.outputs!.texts as Array<{ basename: string; location: string }>).map((f) => [f.basename, f]));
  assert.deepEqual([...texts.keys()], ['env.txt', 'listing.txt', 'note.txt', 'os.txt', 'stdin.txt']);
  // In the image's file system, or the host's.
  const os = (await readOutput(account, texts.get('os.txt')!)).trim();
  if (image) assert.equal(os, 'ID=gdflow-tiny');
  else assert.notEqual(os, 'ID=gdflow-tiny');
  assert.equal(await readOutput(account, texts.get('listing.txt')!), 'a.txt\nsub\n');
  assert.equal(await readOutput(account, texts.get('stdin.txt')!), 'from stdin\na literal\n');
  assert.equal(await readOutput(account, texts.get('env.txt')!), 'hello from gdflow\n');
  const copy = run.outputs!.copy;
  assert.deepEqual(
    copy.listing.map((e: { basename: string }) => e.basename),
    ['a.txt', 'sub'],
  );
  assert.equal(await readOutput(account, copy.listing[1].listing[0]), 'B');
  assert.equal((await jobsOf(account, started.task_id)).get('main').status, 'succeeded');
}

describe('CWL runs on the host executor', () => {
  let server: TestServer;
  let alice: TestAccount;
  before(async () => {
    server = await startTestServer({ executor: 'host' });
    alice = await server.account();
  });
  after(async () => server.close());

  it('stages inputs at host paths: a Directory copied, stdin, an InitialWorkDir literal, an environment variable', async () => {
    await runOn(alice, '/cwl/host');
  });
});

describe('CWL runs on the podman executor', { skip: skipWithoutRuntime('podman') }, () => {
  let server: TestServer;
  let alice: TestAccount;
  before(async () => {
    ensureTinyImage('podman');
    server = await startTestServer({ executor: 'podman', pullPolicy: 'never' });
    alice = await server.account();
  });
  after(async () => server?.close());

  it("runs in the DockerRequirement's image, its inputs bound in the inputs area", async () => {
    await runOn(alice, '/cwl/podman', TINY_IMAGE);
  });

  it("gives the command line to the image's entrypoint, works in dockerOutputDirectory, binds InitialWorkDir entries at absolute paths", async () => {
    // The tiny image with an entrypoint, as images such as docker.io/bash have one: the command line is its arguments.
    const context = mkdtempSync(join(tmpdir(), 'gdflow-entrypoint-'));
    writeFileSync(join(context, 'Containerfile'), `FROM ${TINY_IMAGE}\nENTRYPOINT ["/bin/sh"]\n`);
    const built = spawnSync('podman', ['build', '--pull=never', '-t', ENTRYPOINT_IMAGE, '-f', join(context, 'Containerfile'), context], { encoding: 'utf8' });
    rmSync(context, { recursive: true, force: true });
    assert.equal(built.status, 0, built.stderr);
    const text = await uploadFile(alice, '/cwl/podman-moved/in.txt', 'from the input\n');
    const document = {
      cwlVersion: 'v1.2',
      class: 'CommandLineTool',
      requirements: {
        DockerRequirement: { dockerPull: ENTRYPOINT_IMAGE, dockerOutputDirectory: '/other/out' },
        InitialWorkDirRequirement: {
          listing: [
            { entryname: '/opt/gdflow-test/in.txt', entry: '$(inputs.text)' },
            { entryname: '/opt/gdflow-test/literal.txt', entry: 'a literal\n' },
          ],
        },
      },
      inputs: { text: 'File' },
      // Without the entrypoint, '-c' would be the program run.
      baseCommand: [
        '-c',
        'pwd > where.txt && echo "$HOME" >> where.txt && cat /opt/gdflow-test/in.txt /opt/gdflow-test/literal.txt > copied.txt && touch /other/out/thing',
      ],
      outputs: { texts: { type: 'File[]', outputBinding: { glob: '*.txt' } }, thing: { type: 'File', outputBinding: { glob: '$(runtime.outdir)/thing' } } },
    };
    const started = await runCwl(alice, { document, job: { text } });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    const texts = new Map((run.outputs!.texts as Array<{ basename: string; location: string }>).map((f) => [f.basename, f]));
    assert.deepEqual([...texts.keys()], ['copied.txt', 'where.txt']);
    assert.equal(await readOutput(alice, texts.get('where.txt')!), '/other/out\n/other/out\n');
    assert.equal(await readOutput(alice, texts.get('copied.txt')!), 'from the input\na literal\n');
    assert.equal(run.outputs!.thing.size, 0);
  });
});

/** The tiny image with an ENTRYPOINT (built by the test that uses it). */
const ENTRYPOINT_IMAGE = 'localhost/gdflow-tiny-entrypoint:latest';

describe('CWL runs on Slurm with podman on the node', { skip: skipWithout(slurmUnavailable()) ?? skipWithoutRuntime('podman'), timeout: 300_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gdflow-cwl-slurm-'));
  let served: ServedAccount | undefined;
  before(async () => {
    ensureTinyImage('podman');
    await startSlurm();
    served = await ServedAccount.start(join(scratch, 'data'), 'cwlslurm', [
      '--executor',
      'slurm',
      '--slurm-wrap',
      'podman',
      '--pull-policy',
      'never',
      '--cpus',
      '8',
      '--memory',
      '8g',
    ]);
  });
  after(async () => {
    await served?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("runs as a Slurm job in the DockerRequirement's image", async () => {
    await runOn(served!.account, '/cwl/slurm', TINY_IMAGE);
  });
});
