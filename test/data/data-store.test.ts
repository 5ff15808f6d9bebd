import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  DataChecksumError,
  DataNotFoundError,
  DataPathError,
  DataStore,
  DataTooLargeError,
  formatDataName,
  parseDataName,
  TEMP_PREFIX,
  type DataRef,
} from '../../src/data/index.js';

let base: string;
let root: string;
let store: DataStore;
let n = 0;

before(async () => {
  base = await mkdtemp(join(tmpdir(), 'gdflow-datastore-test-'));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});
beforeEach(() => {
  root = join(base, `root${++n}`);
  store = new DataStore(root);
});

const ref = (name: string, account = 'alice'): DataRef => parseDataName(name, account);
const text = async (stream: NodeJS.ReadableStream): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
};
const md5b64 = (s: string): string => createHash('md5').update(s).digest('base64');
const md5hex = (s: string): string => createHash('md5').update(s).digest('hex');

/** Every file name under a directory, recursively (to look for leftover temporary files). */
async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await allFiles(join(dir, e.name))));
    else out.push(e.name);
  }
  return out;
}

describe('data names: parse / format', () => {
  it('parses both forms and round-trips', () => {
    assert.deepEqual(parseDataName('public:/demo-data/x.fastq.gz', 'alice'), { account: 'public', path: '/demo-data/x.fastq.gz' });
    assert.deepEqual(parseDataName('/reads/r1.fq', 'alice'), { account: 'alice', path: '/reads/r1.fq' });
    for (const name of ['public:/demo-data/x.fastq.gz', 'alice:/a', 'Bob_2-x:/a b/ünï/%2e%2e/file:with:colons', 'alice:/.hidden/..x/x..']) {
      assert.equal(formatDataName(parseDataName(name, 'zed')), name);
    }
    // names are taken literally: no percent-decoding
    assert.equal(parseDataName('/%2e%2e/%2F', 'alice').path, '/%2e%2e/%2F');
  });

  const refused: Array<[string, RegExp]> = [
    ['/../x', /'\.\.' segments/],
    ['/a/../../x', /'\.\.' segments/],
    ['public:/../alice/x', /'\.\.' segments/],
    ['/a/./b', /'\.' segments/],
    ['/..', /'\.\.' segments/],
    ['alice:///etc/passwd', /empty path segments/],
    ['/a//b', /empty path segments/],
    ['/a/', /empty path segments/],
    ['/', /names no item/],
    ['alice:/', /names no item/],
    ['/a\0b', /NUL/],
    ['/a\nb', /control characters/],
    ['/a\u007fb', /control characters/],
    ['/a\\..\\b', /backslashes/],
    ['/a\ud800b', /not valid Unicode/],
    ['', /empty/],
    ['relative/path', /expected/],
    ['alice:relative', /must start with '\/'/],
    ['al:/x', /not a valid account name/],
    ['1alice:/x', /not a valid account name/],
    ['ali ce:/x', /not a valid account name/],
    ['../alice:/x', /not a valid account name/],
    [`/${'a'.repeat(256)}`, /longer than 255 bytes/],
    [`/${'é'.repeat(128)}`, /longer than 255 bytes/],
    [`/${'abcdefgh/'.repeat(120)}x`, /longer than 1024/],
    [`/dir/${TEMP_PREFIX}abc`, /reserved/],
  ];
  for (const [name, why] of refused) {
    it(`refuses ${JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name)}`, () => {
      assert.throws(
        () => parseDataName(name, 'alice'),
        (err: unknown) => {
          assert.ok(err instanceof DataPathError);
          assert.match(err.message, why);
          return true;
        },
      );
    });
  }

  it('refuses an invalid default account', () => {
    assert.throws(() => parseDataName('/x', '..'), DataPathError);
  });
});

const shmIsOtherFs = await isOtherFs('/dev/shm');

describe('DataStore', () => {
  it('write, stat, read, overwrite', async () => {
    const r = ref('/dir/sub/item.txt');
    assert.equal(await store.stat(r), undefined);
    await assert.rejects(store.createReadStream(r), DataNotFoundError);
    const first = await store.write(r, Buffer.from('hello\n'));
    assert.deepEqual(first, { size: 6, md5: md5hex('hello\n') });
    assert.equal(await readFile(join(root, 'alice', 'dir', 'sub', 'item.txt'), 'utf8'), 'hello\n');
    const st = await store.stat(r);
    assert.equal(st?.size, 6);
    assert.ok(Math.abs((st?.modifiedAt ?? 0) - Date.now() / 1000) < 60);
    assert.equal(await text(await store.createReadStream(r)), 'hello\n');
    const second = await store.write(r, Readable.from([Buffer.from('new '), 'content']));
    assert.deepEqual(second, { size: 11, md5: md5hex('new content') });
    assert.equal(await text(await store.createReadStream(r)), 'new content');
    assert.equal(await store.resolve(r), join(root, 'alice', 'dir', 'sub', 'item.txt'));
    assert.deepEqual(await allFiles(root), ['item.txt']);
  });

  it('directories are not items', async () => {
    await store.write(ref('/d/x'), Buffer.from('x'));
    assert.equal(await store.stat(ref('/d')), undefined);
    await assert.rejects(store.createReadStream(ref('/d')), DataNotFoundError);
    await assert.rejects(store.write(ref('/d'), Buffer.from('y')), /directory/);
    await assert.rejects(store.write(ref('/d/x/y'), Buffer.from('y')), /not a directory/);
    assert.equal(await store.delete(ref('/d')), false);
  });

  it('atomic write: a source that fails half-way leaves the old content and no temporary file', async () => {
    const r = ref('/atomic.bin');
    await store.write(r, Buffer.from('old content'));
    const source = new PassThrough();
    const writing = store.write(r, source);
    source.write(Buffer.alloc(256 * 1024, 1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // mid-write: the final name still has the old content, the new bytes sit in a temporary file
    assert.equal(await text(await store.createReadStream(r)), 'old content');
    assert.equal((await readdir(join(root, 'alice'))).filter((f) => f.startsWith(TEMP_PREFIX)).length, 1);
    source.destroy(new Error('client went away'));
    await assert.rejects(writing, /client went away/);
    assert.equal(await text(await store.createReadStream(r)), 'old content');
    assert.deepEqual(await allFiles(root), ['atomic.bin']);
  });

  it('a crash leaves only a stale temporary file, never a partial item; stale temporaries are swept', async () => {
    const r = ref('/crash.txt');
    await store.write(r, Buffer.from('v1'));
    // what a killed writer leaves: a temporary file next to the item
    const stale = join(root, 'alice', `${TEMP_PREFIX}deadbeef`);
    await writeFile(stale, 'partial');
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await utimes(stale, old, old);
    assert.deepEqual(
      (await store.list('alice', '/')).map((e) => e.name),
      ['alice:/crash.txt'],
    );
    assert.equal(await store.removeStaleTemporaryFiles(), 1);
    assert.deepEqual(await allFiles(root), ['crash.txt']);
  });

  it('md5 check: matching accepted, mismatch refused without touching the item', async () => {
    const r = ref('/checked.txt');
    assert.equal((await store.write(r, Buffer.from('abc'), { expectedMd5Base64: md5b64('abc') })).md5, md5hex('abc'));
    await assert.rejects(store.write(r, Readable.from(['xyz']), { expectedMd5Base64: md5b64('abc') }), DataChecksumError);
    await assert.rejects(store.write(r, Buffer.from('xyz'), { expectedMd5Base64: 'not-base64-md5' }), DataChecksumError);
    assert.equal(await text(await store.createReadStream(r)), 'abc');
    assert.deepEqual(await allFiles(root), ['checked.txt']);
  });

  it('size limit: over maxBytes refused, at maxBytes accepted', async () => {
    const r = ref('/limited.bin');
    await assert.rejects(store.write(r, Buffer.alloc(11), { maxBytes: 10 }), DataTooLargeError);
    await assert.rejects(store.write(r, Readable.from([Buffer.alloc(6), Buffer.alloc(6)]), { maxBytes: 10 }), DataTooLargeError);
    assert.equal(await store.stat(r), undefined);
    assert.deepEqual(await store.write(r, Readable.from([Buffer.alloc(5), Buffer.alloc(5)]), { maxBytes: 10 }), {
      size: 10,
      md5: createHash('md5').update(Buffer.alloc(10)).digest('hex'),
    });
    assert.deepEqual(await allFiles(root), ['limited.bin']);
  });

  it('list: recursive, sorted by name, prefix is a directory, limit', async () => {
    for (const name of ['/b/2', '/a-b', '/a/x', '/a/y/z', '/b/1', '/c', '/ab']) await store.write(ref(name), Buffer.from(name));
    await store.write(ref('/other', 'bob'), Buffer.from('bob'));
    const names = (await store.list('alice', '/')).map((e) => e.name);
    assert.deepEqual(names, ['alice:/a-b', 'alice:/a/x', 'alice:/a/y/z', 'alice:/ab', 'alice:/b/1', 'alice:/b/2', 'alice:/c']);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual(
      (await store.list('alice', '/a')).map((e) => e.name),
      ['alice:/a/x', 'alice:/a/y/z'],
    );
    assert.deepEqual(
      (await store.list('alice', '/a/')).map((e) => e.name),
      ['alice:/a/x', 'alice:/a/y/z'],
    );
    assert.deepEqual(await store.list('alice', '/nothing'), []);
    assert.deepEqual(await store.list('alice', '/c'), []); // an item is not a directory
    assert.deepEqual(
      (await store.list('alice', '/', { limit: 3 })).map((e) => e.name),
      ['alice:/a-b', 'alice:/a/x', 'alice:/a/y/z'],
    );
    const [first] = await store.list('alice', '/b');
    assert.equal(first?.size, 4);
    assert.deepEqual(await store.list('carol', '/'), []);
    await assert.rejects(store.list('alice', '/../bob'), DataPathError);
    await assert.rejects(store.list('..', '/'), DataPathError);
  });

  it('delete', async () => {
    const r = ref('/gone.txt');
    await store.write(r, Buffer.from('x'));
    assert.equal(await store.delete(r), true);
    assert.equal(await store.stat(r), undefined);
    assert.equal(await store.delete(r), false);
  });

  it('importFile: hard link on the same file system, copy otherwise; refuses symlinks and non-files', async () => {
    const work = join(base, `work${n}`);
    await mkdir(join(work, 'out'), { recursive: true });
    const output = join(work, 'out', 'result.txt');
    await writeFile(output, 'job output\n', { mode: 0o755 });
    const stamp = await store.importFile(ref('/results/result.txt'), output, { within: work });
    assert.deepEqual(stamp, { size: 11, mtimeMs: (await store.stat(ref('/results/result.txt')))!.mtimeMs }, "the stored item's stamp");
    const imported = join(root, 'alice', 'results', 'result.txt');
    assert.equal(await readFile(imported, 'utf8'), 'job output\n');
    assert.equal((await stat(imported)).ino, (await stat(output)).ino, 'hard-linked');
    assert.equal((await stat(imported)).mode & 0o7777, 0o644);

    // a file with several links is copied, so the item does not alias another file
    const twice = join(work, 'twice.txt');
    await writeFile(twice, 'aliased');
    await link(twice, join(work, 'twice-link.txt'));
    await store.importFile(ref('/results/twice.txt'), twice);
    assert.notEqual((await stat(join(root, 'alice', 'results', 'twice.txt'))).ino, (await stat(twice)).ino);
    assert.equal(await readFile(join(root, 'alice', 'results', 'twice.txt'), 'utf8'), 'aliased');

    // replaces an existing item
    await writeFile(join(work, 'v2.txt'), 'version 2');
    await store.importFile(ref('/results/result.txt'), join(work, 'v2.txt'));
    assert.equal(await readFile(imported, 'utf8'), 'version 2');

    // a job planting a symlink as its output, or in a directory on the way, cannot import host files
    await symlink('/etc/passwd', join(work, 'evil.txt'));
    await assert.rejects(store.importFile(ref('/results/evil.txt'), join(work, 'evil.txt')), DataPathError);
    await symlink('/etc', join(work, 'etc'));
    await assert.rejects(store.importFile(ref('/results/passwd'), join(work, 'etc', 'passwd'), { within: work }), /symbolic link/);
    await assert.rejects(store.importFile(ref('/results/outside'), '/etc/hostname', { within: work }), /not inside/);
    await assert.rejects(store.importFile(ref('/results/dir'), join(work, 'out')), /not a regular file/);
    await assert.rejects(store.importFile(ref('/results/missing'), join(work, 'missing')), DataNotFoundError);
    assert.deepEqual((await allFiles(root)).sort(), ['result.txt', 'twice.txt']);
  });

  it('importFile copies across file systems (/dev/shm is a tmpfs)', { skip: shmIsOtherFs ? false : 'no second file system available' }, async () => {
    const src = await mkdtemp('/dev/shm/gdflow-import-');
    try {
      await writeFile(join(src, 'f'), 'from tmpfs');
      const copied = await store.importFile(ref('/x/f'), join(src, 'f'));
      assert.deepEqual(copied, { size: 10, mtimeMs: (await store.stat(ref('/x/f')))!.mtimeMs }, "the copy's stamp");
      assert.equal(await readFile(join(root, 'alice', 'x', 'f'), 'utf8'), 'from tmpfs');
    } finally {
      await rm(src, { recursive: true, force: true });
    }
  });

  describe('symlinks planted inside the store are refused', () => {
    const secret = 'top secret\n';
    let outside: string;
    beforeEach(async () => {
      outside = join(base, `outside${n}`);
      await mkdir(outside, { recursive: true });
      await writeFile(join(outside, 'secret.txt'), secret);
      await store.write(ref('/own.txt', 'bob'), Buffer.from('bob data'));
    });

    const expectRefused = async (r: DataRef): Promise<void> => {
      await assert.rejects(store.resolve(r), DataPathError);
      await assert.rejects(store.stat(r), DataPathError);
      await assert.rejects(store.createReadStream(r), DataPathError);
      await assert.rejects(store.write(r, Buffer.from('overwrite')), DataPathError);
      await assert.rejects(store.delete(r), DataPathError);
    };

    it('a directory symlink to a host directory (/etc)', async () => {
      await mkdir(join(root, 'alice'), { recursive: true });
      await symlink('/etc', join(root, 'alice', 'etc'));
      await expectRefused(ref('/etc/hostname'));
      await expectRefused(ref('/etc/new-file'));
      await assert.rejects(store.list('alice', '/etc'), DataPathError);
      assert.deepEqual(await store.list('alice', '/'), []); // listing skips it
    });

    it("a directory symlink to another account's directory", async () => {
      await mkdir(join(root, 'alice'), { recursive: true });
      await symlink(join(root, 'bob'), join(root, 'alice', 'bobs'));
      await expectRefused(ref('/bobs/own.txt'));
      assert.equal(await readFile(join(root, 'bob', 'own.txt'), 'utf8'), 'bob data');
    });

    it('the item itself is a symlink to a file outside', async () => {
      await mkdir(join(root, 'alice'), { recursive: true });
      await symlink(join(outside, 'secret.txt'), join(root, 'alice', 'link.txt'));
      await expectRefused(ref('/link.txt'));
      assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), secret);
    });

    it('the account directory itself is a symlink', async () => {
      await mkdir(root, { recursive: true });
      await symlink(outside, join(root, 'mallory'));
      await expectRefused(ref('/secret.txt', 'mallory'));
      await assert.rejects(store.list('mallory', '/'), DataPathError);
    });
  });

  it('a hand-made ref is re-validated', async () => {
    await assert.rejects(store.resolve({ account: 'alice', path: '/../bob/own.txt' }), DataPathError);
    await assert.rejects(store.write({ account: '../x', path: '/y' }, Buffer.from('')), DataPathError);
    await assert.rejects(store.stat({ account: 'alice', path: 'no-slash' }), DataPathError);
  });

  it('a root that does not exist yet: reads see nothing, the first write creates it', async () => {
    const r = ref('/first');
    assert.equal(await store.stat(r), undefined);
    assert.deepEqual(await store.list('alice', '/'), []);
    await store.write(r, Buffer.from('1'));
    assert.equal((await store.stat(r))?.size, 1);
  });
});

async function isOtherFs(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).dev !== (await stat(tmpdir())).dev;
  } catch {
    return false;
  }
}
