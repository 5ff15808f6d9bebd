import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomReference } from './reference.js';

/** The demo's sample: a 20 kb random reference and paired 100 bp reads simulated from it, the same on every run. */
export interface Sample {
  reference: string;
  r1: Buffer;
  r2: Buffer;
}

/** `reads` pairs simulated with wgsim (shipped in Debian's samtools package), with a fixed seed. */
export function demoSample(reads: number): Sample {
  const reference = randomReference({ length: 20_000, seed: 42 });
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-demo-'));
  try {
    writeFileSync(join(dir, 'ref.fa'), reference);
    const options = ['-S', '7', '-N', String(reads), '-1', '100', '-2', '100', '-d', '300', '-s', '30', '-e', '0.01', '-r', '0.001'];
    const result = spawnSync('wgsim', [...options, 'ref.fa', 'r1.fq', 'r2.fq'], { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`wgsim failed: ${result.error?.message ?? result.stderr}`);
    return { reference, r1: readFileSync(join(dir, 'r1.fq')), r2: readFileSync(join(dir, 'r2.fq')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
