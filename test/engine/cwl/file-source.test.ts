import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadDocument } from '../../../src/domain/cwl/index.js';
import { documentUri, FileDocumentSource } from '../../../src/engine/cwl/file-source.js';

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gdflow-cwl-source-'));
  mkdirSync(join(dir, 'root'));
  writeFileSync(join(dir, 'root', 'colon:tool.cwl'), 'cwlVersion: v1.2\nclass: CommandLineTool\ninputs: []\noutputs: []\n');
  writeFileSync(join(dir, 'secret.cwl'), 'secret');
  symlinkSync(join(dir, 'secret.cwl'), join(dir, 'root', 'link.cwl'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('CWL documents from local files', () => {
  it('reads file URIs, names a missing file, refuses other schemes', async () => {
    const source = new FileDocumentSource();
    assert.match(await source.read(pathToFileURL(join(dir, 'root', 'colon:tool.cwl')).href), /CommandLineTool/);
    await assert.rejects(source.read(pathToFileURL(join(dir, 'none.cwl')).href), /no such file: .*none\.cwl/);
    await assert.rejects(source.read('https://example.com/tool.cwl'), /only local files can be read, not https: URIs/);
  });

  it('with a root, refuses what leaves it by .. or by a symbolic link', async () => {
    const source = new FileDocumentSource({ root: join(dir, 'root') });
    await assert.rejects(source.read(pathToFileURL(join(dir, 'root', '..', 'secret.cwl')).href), /is outside/);
    await assert.rejects(source.read(pathToFileURL(join(dir, 'root', 'link.cwl')).href), /is outside/);
  });

  it('turns command-line names into URIs, keeping fragments and colons in file names', async () => {
    assert.equal(documentUri('tests/wf.cwl#main', '/suite'), 'file:///suite/tests/wf.cwl#main');
    assert.equal(documentUri('colon:tool.cwl', join(dir, 'root')), `${pathToFileURL(join(dir, 'root')).href}/colon:tool.cwl`);
    assert.equal(documentUri('file:///x/y.cwl'), 'file:///x/y.cwl');
    const loaded = await loadDocument(documentUri('colon:tool.cwl', join(dir, 'root')), new FileDocumentSource());
    assert.equal(loaded.process.class, 'CommandLineTool');
  });
});
