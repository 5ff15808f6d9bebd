/**
 * An imported document's InitialWorkDir listings as exported (docs/cwl.md, "Export"): the Files and Directories the
 * import uploaded (gdflow: locations) become literals where they are text, in both forms of the requirement.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LITERAL_LIMIT, workDirLiterals, type ExportFiles } from '../../../src/domain/cwl/export/work-dir-literals.js';

/** A data store of a few files, by data path. */
function store(files: Record<string, Uint8Array | string>): ExportFiles {
  const bytes = (v: Uint8Array | string) => (typeof v === 'string' ? new TextEncoder().encode(v) : v);
  return {
    readBytes: (path, limit) => Promise.resolve(path in files && bytes(files[path]!).length <= limit ? bytes(files[path]!) : undefined),
    listFiles: (path) => Promise.resolve(Object.keys(files).filter((p) => p.startsWith(`${path}/`))),
  };
}

const files = store({
  '/cwl/inputs/aa/list.txt': 'a.txt\nb.txt\n',
  '/cwl/inputs/bb/dir/x': 'x',
  '/cwl/inputs/bb/dir/sub/y': '',
  '/cwl/inputs/cc/blob.bin': new Uint8Array([0xff, 0xfe, 0x00]),
  '/cwl/inputs/dd/big.txt': 'z'.repeat(LITERAL_LIMIT + 1),
});

describe('InitialWorkDir listings as exported', () => {
  it('writes text Files and Directory trees as literals, in a nested list too, and keeps what cannot be one', async () => {
    const document = {
      class: 'CommandLineTool',
      requirements: [
        {
          class: 'InitialWorkDirRequirement',
          listing: [
            { class: 'File', location: 'gdflow:cwl/inputs/aa/list.txt', format: 'edam:format_1964' },
            [{ class: 'Directory', location: 'gdflow:cwl/inputs/bb/dir/' }],
            { class: 'File', location: 'gdflow:cwl/inputs/cc/blob.bin' },
            { class: 'File', location: 'gdflow:cwl/inputs/dd/big.txt' },
            { entryname: 'conf', entry: '$(inputs.x)' },
          ],
        },
      ],
      inputs: [{ id: 'x', type: 'File', default: { class: 'File', location: 'gdflow:cwl/inputs/aa/list.txt' } }],
    };
    const exported = (await workDirLiterals(document, files)) as any;
    const [file, [directory], blob, big, dirent] = exported.requirements[0].listing;
    assert.deepEqual(file, { class: 'File', format: 'edam:format_1964', basename: 'list.txt', contents: 'a.txt\nb.txt\n' });
    assert.deepEqual(directory, {
      class: 'Directory',
      basename: 'dir',
      listing: [
        { class: 'Directory', basename: 'sub', listing: [{ class: 'File', basename: 'y', contents: '' }] },
        { class: 'File', basename: 'x', contents: 'x' },
      ],
    });
    assert.deepEqual(blob, { class: 'File', location: 'gdflow:cwl/inputs/cc/blob.bin' }, 'not UTF-8: kept');
    assert.deepEqual(big, { class: 'File', location: 'gdflow:cwl/inputs/dd/big.txt' }, 'over the limit: kept');
    assert.deepEqual(dirent, { entryname: 'conf', entry: '$(inputs.x)' });
    assert.deepEqual(exported.inputs, document.inputs, 'a default File is not in a listing: kept');
  });

  it('reads the map form of the requirement, in hints too, and keeps its shape', async () => {
    const document = {
      $graph: [
        {
          id: '#main',
          class: 'CommandLineTool',
          hints: { InitialWorkDirRequirement: { listing: [{ class: 'File', location: 'gdflow:cwl/inputs/aa/list.txt', basename: 'renamed.txt' }] } },
        },
      ],
    };
    const exported = (await workDirLiterals(document, files)) as any;
    assert.deepEqual(exported.$graph[0].hints, {
      InitialWorkDirRequirement: { listing: [{ class: 'File', basename: 'renamed.txt', contents: 'a.txt\nb.txt\n' }] },
    });
  });
});
