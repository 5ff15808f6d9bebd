import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { LocalFileContents } from '../../../src/engine/cwl/file-contents.js';

let dir = '';
const uri = (...parts: string[]): string => pathToFileURL(join(dir, ...parts)).href;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'gdflow-cwl-contents-'));
  mkdirSync(join(dir, 'root'));
  writeFileSync(join(dir, 'root', 'small.txt'), 'héllo\n');
  writeFileSync(join(dir, 'root', 'empty.txt'), '');
  writeFileSync(join(dir, 'secret.txt'), 'secret');
  symlinkSync(join(dir, 'secret.txt'), join(dir, 'root', 'link.txt'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('loadContents over local files', () => {
  it('reads the first bytes of a file and says whether that is all of it', async () => {
    const reader = new LocalFileContents();
    assert.deepEqual(await reader.head(uri('root', 'small.txt'), 100), { text: 'héllo\n', whole: true });
    assert.deepEqual(await reader.head(uri('root', 'small.txt'), 7), { text: 'héllo\n', whole: true }, 'é is two bytes: 7 bytes is the whole file');
    assert.deepEqual(await reader.head(uri('root', 'small.txt'), 3), { text: 'hé', whole: false });
    assert.deepEqual(await reader.head(uri('root', 'empty.txt'), 10), { text: '', whole: true });
  });

  it('names a missing file, refuses other schemes, and with a root refuses what leaves it', async () => {
    const reader = new LocalFileContents({ root: join(dir, 'root') });
    await assert.rejects(reader.head(uri('root', 'none.txt'), 10), /loadContents: no such file: .*none\.txt/);
    await assert.rejects(reader.head('https://example.com/x', 10), /local files only/);
    await assert.rejects(reader.head(uri('root', '..', 'secret.txt'), 10), /is outside/);
    await assert.rejects(reader.head(uri('root', 'link.txt'), 10), /is outside/);
    assert.equal((await reader.head(uri('root', 'small.txt'), 10)).text, 'héllo\n');
  });
});
