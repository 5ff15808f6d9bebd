/** A reproducible random reference genome for the demo (no download needed). */

/** mulberry32: a small, well-known seeded PRNG; the same seed gives the same genome everywhere. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FASTA text of `contigs` random contigs of `length` bases, 60 bases a line. */
export function randomReference(options: { contigs?: number; length?: number; seed?: number } = {}): string {
  const random = mulberry32(options.seed ?? 42);
  const lines: string[] = [];
  for (let c = 1; c <= (options.contigs ?? 1); c++) {
    let sequence = '';
    for (let i = 0; i < (options.length ?? 20_000); i++) sequence += 'ACGT'[Math.floor(random() * 4)];
    lines.push(`>chr${c}`);
    for (let i = 0; i < sequence.length; i += 60) lines.push(sequence.slice(i, i + 60));
  }
  return `${lines.join('\n')}\n`;
}
