import { inflateRawSync } from 'node:zlib';

/**
 * Reading the two files of a sorted, indexed alignment far enough to compare them byte for byte apart from their
 * header: samtools writes a BAM's header (with the `@PG` lines that hold each program's command line, and so the
 * paths of the job that ran it) in BGZF blocks of its own, then the alignments. Two runs of the same commands in
 * different directories make the same alignment blocks after headers of different lengths, and indexes whose file
 * offsets differ by that difference alone.
 */

export interface BamParts {
  /** The header, decompressed: magic, text, references. */
  header: Buffer;
  /** The header's BGZF blocks: how many bytes of the file they take. */
  headerBytes: number;
  /** Everything after them: the alignments' blocks and the end-of-file block. */
  body: Buffer;
}

/** Each BGZF block's place in the file and its inflated data. */
function* blocks(file: Buffer): Generator<{ offset: number; size: number; data: Buffer }> {
  for (let offset = 0; offset < file.length;) {
    if (file[offset] !== 0x1f || file[offset + 1] !== 0x8b || file.readUInt16LE(offset + 10) !== 6) throw new Error(`no BGZF block at byte ${offset}`);
    const size = file.readUInt16LE(offset + 16) + 1;
    yield { offset, size, data: inflateRawSync(file.subarray(offset + 18, offset + size - 8)) };
    offset += size;
  }
}

/** The length of a BAM header at the start of `data`, or undefined while `data` does not hold all of it yet. */
function headerLength(data: Buffer): number | undefined {
  if (data.length < 8) return undefined;
  if (data.subarray(0, 4).toString('latin1') !== 'BAM\u0001') throw new Error('not a BAM file');
  let at = 8 + data.readInt32LE(4);
  if (data.length < at + 4) return undefined;
  const references = data.readInt32LE(at);
  at += 4;
  for (let i = 0; i < references; i++) {
    if (data.length < at + 4) return undefined;
    at += 4 + data.readInt32LE(at) + 4;
  }
  return data.length < at ? undefined : at;
}

/** A BAM split after the blocks of its header (which must end at a block's end, as samtools writes it). */
export function splitBam(file: Buffer): BamParts {
  let header = Buffer.alloc(0);
  for (const block of blocks(file)) {
    header = Buffer.concat([header, block.data]);
    const length = headerLength(header);
    if (length === undefined) continue;
    if (length !== header.length) throw new Error(`the BAM header ends inside the block at byte ${block.offset}`);
    const headerBytes = block.offset + block.size;
    return { header, headerBytes, body: file.subarray(headerBytes) };
  }
  throw new Error('the BAM file ends inside its header');
}

/** The header's text (the SAM header lines). */
export const headerText = (header: Buffer): string => header.subarray(8, 8 + header.readInt32LE(4)).toString('utf8');

/**
 * A BAI index with every file offset moved by `shift` bytes: each virtual offset's block address, in the bins'
 * chunks and the linear index (0 means none and stays), but not the counts of mapped and unmapped reads that the
 * pseudo-bin 37450 keeps in its second chunk.
 */
export function shiftBai(index: Buffer, shift: number): Buffer {
  const out = Buffer.from(index);
  if (out.subarray(0, 4).toString('latin1') !== 'BAI\u0001') throw new Error('not a BAI index');
  const move = (at: number): void => {
    const virtual = out.readBigUInt64LE(at);
    if (virtual !== 0n) out.writeBigUInt64LE(virtual + (BigInt(shift) << 16n), at);
  };
  let at = 8;
  for (let reference = out.readInt32LE(4); reference > 0; reference--) {
    let bins = out.readInt32LE(at);
    at += 4;
    for (; bins > 0; bins--) {
      const bin = out.readUInt32LE(at);
      const chunks = out.readInt32LE(at + 4);
      at += 8;
      for (let chunk = 0; chunk < chunks; chunk++, at += 16) {
        if (bin === 37450 && chunk === 1) continue;
        move(at);
        move(at + 8);
      }
    }
    let intervals = out.readInt32LE(at);
    at += 4;
    for (; intervals > 0; intervals--, at += 8) move(at);
  }
  return out;
}
