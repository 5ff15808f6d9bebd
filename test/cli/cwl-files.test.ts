/**
 * The file work of `gdflow cwl run`, against a real server over HTTP: a run's local inputs (the job's Files with the
 * secondary files their inputs declare, found beside them; Directories; the document's default files) uploaded to
 * the data store under /cwl/inputs/<content hash>/ and the CWL objects rewritten to gdflow: locations; and a run's
 * outputs, given at gdflow: locations, downloaded into an output directory and described as cwl-runners print them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '../../src/client/client.js';
import { dataLocationOf, dataPathOf as dataPath } from '../../src/domain/cwl/runs/locations.js';
import { InputUploads } from '../../src/cli/cwl/input-uploads.js';
import { loadLocalRun } from '../../src/cli/cwl/local-run.js';
import { OutputDownloads } from '../../src/cli/cwl/output-downloads.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: Client;
let dir: string;

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

function write(path: string, text: string): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

before(async () => {
  server = await startTestServer();
  const account = await server.account();
  client = new Client({ endpoint: server.url, accessKeyId: account.accessKeyId, accessKeySecret: account.accessKeySecret, retries: 0 });
  dir = mkdtempSync(join(tmpdir(), 'gdflow-cwl-files-'));
});

after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOOL = `cwlVersion: v1.2
class: CommandLineTool
requirements:
  InlineJavascriptRequirement: {}
inputs:
  reads:
    type: File
    secondaryFiles: [.bai, ^.idx, "$(self.basename + '.md5')", {pattern: .missing, required: false}]
  sample: Directory
  reference: {type: File, default: {class: File, location: data/ref.fa}}
  many: File[]
  label: {type: string, default: "my label"}
baseCommand: 'true'
outputs: {}
`;

describe('uploading the inputs of a run', () => {
  it('puts each File with its secondary files, and each Directory, under /cwl/inputs/<hash>/, once', async () => {
    write('tool.cwl', TOOL);
    write('data/ref.fa', '>ref\nACGT\n');
    write('data/reads.bam', 'BAM');
    write('data/reads.bam.bai', 'BAI');
    write('data/reads.idx', 'IDX');
    write('data/reads.bam.md5', 'MD5');
    write('data/sample/a.txt', 'a');
    write('data/sample/sub/b.txt', 'bb');
    write('data/my file #1.txt', 'spaces');
    write(
      'job.yml',
      'reads: {class: File, path: data/reads.bam}\nsample: {class: Directory, location: data/sample}\nmany:\n  - {class: File, location: "data/my%20file%20%231.txt"}\n  - {class: File, path: data/ref.fa}\n',
    );
    const local = await loadLocalRun('tool.cwl', 'job.yml', { cwd: dir });
    const uploads = new InputUploads(client);
    const job = (await uploads.rewrite(local.inputs, 'inputs')) as Record<string, any>;
    const document = await uploads.rewriteDocument(local.packed.document);
    const first = await uploads.upload();

    // The secondary files declared by patterns and an expression were found beside the primary; the optional missing one is left out.
    assert.deepEqual(job.reads.secondaryFiles.map((s: { basename: string }) => s.basename).sort(), ['reads.bam.bai', 'reads.bam.md5', 'reads.idx']);
    const readsDir = dataPath(job.reads.location).replace(/\/reads\.bam$/, '');
    assert.match(readsDir, /^\/cwl\/inputs\/[0-9a-f]{40}$/);
    for (const s of job.reads.secondaryFiles) assert.equal(dataPath(s.location), `${readsDir}/${s.basename}`, 'beside the primary');
    assert.equal(job.reads.path, undefined, 'no local path goes to the server');
    assert.match(job.sample.location, /^gdflow:cwl\/inputs\/[0-9a-f]{40}\/sample\/$/);
    assert.equal(job.many[0].location.endsWith('/my%20file%20%231.txt'), true, 'data paths are percent-encoded, as file: URIs');
    assert.equal(dataPath(job.many[0].location).endsWith('/my file #1.txt'), true);
    assert.equal(job.many[0].basename, 'my file #1.txt');
    assert.equal(job.label, 'my label');
    // The same file as the job's many[1] and the document's default: one place, one upload.
    assert.equal(job.many[1].location, job.reference.location);
    const defaultFile = JSON.stringify(document).match(/"location":"(gdflow:[^"]+ref\.fa)"/)?.[1];
    assert.equal(defaultFile, job.reference.location, "the document's default File is rewritten too");

    const { items } = await client.listData('/cwl/inputs/');
    const stored = new Map(items.map((i) => [i.name.slice(i.name.indexOf(':') + 1), i.size]));
    assert.equal(stored.get(`${readsDir}/reads.bam.bai`), 3);
    assert.equal(stored.get(`${dataPath(job.sample.location)}/sub/b.txt`), 2);
    assert.equal((await client.readData(dataPath(job.many[0].location))).toString(), 'spaces');
    assert.deepEqual({ uploaded: first.uploaded, reused: first.reused }, { uploaded: 8, reused: 0 });

    // Again: everything is in the store already.
    const again = new InputUploads(client);
    await again.rewrite(local.inputs, 'inputs');
    await again.rewriteDocument(local.packed.document);
    assert.deepEqual(await again.upload(), { uploaded: 0, bytes: 0, reused: 8 });
  });

  it('keeps gdflow: locations and literals, and refuses locations it cannot read', async () => {
    const uploads = new InputUploads(client);
    const literal = { class: 'File', basename: 'x.txt', contents: 'x' };
    const inStore = { class: 'File', location: 'gdflow:reads/x.fq' };
    assert.deepEqual(await uploads.rewrite({ a: literal, b: inStore, c: { class: 'Directory', basename: 'd', listing: [literal] } }, 'inputs'), {
      a: literal,
      b: inStore,
      c: { class: 'Directory', basename: 'd', listing: [literal] },
    });
    // A directory without a single file is a literal Directory (the store keeps files only).
    mkdirSync(join(dir, 'empty', 'inner'), { recursive: true });
    const empty = await uploads.rewrite({ class: 'Directory', location: pathToFileURL(join(dir, 'empty')).href }, 'inputs.e');
    assert.deepEqual(empty, { class: 'Directory', basename: 'empty', listing: [{ class: 'Directory', basename: 'inner', listing: [] }] });
    await assert.rejects(uploads.rewrite({ a: { class: 'File', location: 'https://example.com/x' } }, 'inputs'), (error: Error & { exitCode?: number }) => {
      assert.equal(error.exitCode, 33);
      assert.match(error.message, /unsupported: https locations: inputs\.a: https:\/\/example\.com\/x/);
      return true;
    });
    await assert.rejects(
      uploads.rewrite({ a: { class: 'File', location: pathToFileURL(join(dir, 'none.txt')).href } }, 'inputs'),
      /inputs\.a: .*none\.txt does not exist/,
    );
    await assert.rejects(
      uploads.rewrite({ a: { class: 'File', location: pathToFileURL(join(dir, 'data')).href } }, 'inputs'),
      /inputs\.a: .*data is a directory, not a File/,
    );
  });
});

describe('downloading the outputs of a run', () => {
  it('writes each File and Directory under its basename and describes what it wrote', async () => {
    const run = '/cwl/runs/task1';
    for (const [name, text] of [
      ['out.txt', 'hello\n'],
      ['a/out.txt', 'other\n'],
      ['a/out.txt.idx', 'idx'],
      ['tree/x.txt', 'x'],
      ['tree/sub/y.txt', 'yy'],
    ]) {
      await client.putData(`${run}/${name}`, Buffer.from(text!));
    }
    const outputs = {
      text: {
        class: 'File',
        location: dataLocationOf(`${run}/out.txt`, false),
        basename: 'out.txt',
        size: 6,
        checksum: 'sha1$server',
        format: 'http://edamontology.org/format_2330',
      },
      more: [
        {
          class: 'File',
          location: dataLocationOf(`${run}/a/out.txt`, false),
          basename: 'out.txt',
          secondaryFiles: [{ class: 'File', location: dataLocationOf(`${run}/a/out.txt.idx`, false), basename: 'out.txt.idx' }],
        },
        { class: 'File', location: dataLocationOf(`${run}/out.txt`, false), basename: 'out.txt' },
      ],
      tree: {
        class: 'Directory',
        location: dataLocationOf(`${run}/tree`, true),
        basename: 'tree',
        listing: [{ class: 'Directory', basename: 'empty', listing: [] }],
      },
      note: { class: 'File', basename: 'note.txt', contents: 'literal' },
      count: 3,
      nothing: null,
    };
    const outdir = join(dir, 'outdir');
    const local = (await new OutputDownloads(client, outdir).localize(outputs)) as Record<string, any>;
    const here = (name: string) => ({ location: pathToFileURL(join(outdir, name)).href, path: join(outdir, name) });
    assert.deepEqual(local.text, {
      class: 'File',
      ...here('out.txt'),
      basename: 'out.txt',
      size: 6,
      checksum: `sha1$${sha1('hello\n')}`,
      format: 'http://edamontology.org/format_2330',
    });
    // A second file of the same name gets another; the same location again is the same local file.
    assert.equal(local.more[0].basename, 'out.txt_2');
    assert.equal(readFileSync(join(outdir, 'out.txt_2'), 'utf8'), 'other\n');
    assert.deepEqual(local.more[0].secondaryFiles, [
      { class: 'File', ...here('out.txt.idx'), basename: 'out.txt.idx', size: 3, checksum: `sha1$${sha1('idx')}` },
    ]);
    assert.deepEqual(local.more[1], local.text);
    assert.deepEqual(local.tree, {
      class: 'Directory',
      ...here('tree'),
      basename: 'tree',
      listing: [
        { class: 'Directory', ...here('tree/empty'), basename: 'empty', listing: [] },
        {
          class: 'Directory',
          ...here('tree/sub'),
          basename: 'sub',
          listing: [{ class: 'File', ...here('tree/sub/y.txt'), basename: 'y.txt', size: 2, checksum: `sha1$${sha1('yy')}` }],
        },
        { class: 'File', ...here('tree/x.txt'), basename: 'x.txt', size: 1, checksum: `sha1$${sha1('x')}` },
      ],
    });
    assert.deepEqual(local.note, {
      class: 'File',
      ...here('note.txt'),
      basename: 'note.txt',
      contents: 'literal',
      size: 7,
      checksum: `sha1$${sha1('literal')}`,
    });
    assert.deepEqual([local.count, local.nothing], [3, null]);
    assert.equal(existsSync(join(outdir, 'out.txt.gdflow-part')), false);
  });

  it('refuses an output the server gives outside the data store, and names that would leave the output directory', async () => {
    const outdir = join(dir, 'outdir2');
    await assert.rejects(
      new OutputDownloads(client, outdir).localize({ x: { class: 'File', location: 'file:///etc/passwd' } }),
      /output passwd at file:\/\/\/etc\/passwd, not in the data store/,
    );
    await client.putData('/cwl/runs/task2/f', Buffer.from('f'));
    const local = (await new OutputDownloads(client, outdir).localize({
      x: { class: 'File', location: dataLocationOf('/cwl/runs/task2/f', false), basename: '../../escape' },
    })) as Record<string, any>;
    assert.equal(local.x.path, join(outdir, 'file'));
  });
});
