/**
 * Checking a bioinformatics pipeline's outputs by content (the CWL and WDL pipelines of test/e2e/*-pipelines.test.ts):
 * the host tools they need, samtools run on what they made, and its flagstat reports read.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/** Why the host's tools cannot run the pipeline here, or undefined when they are all installed. */
export function hostToolsMissing(tools: readonly string[] = ['fastp', 'bwa', 'samtools']): string | undefined {
  const missing = tools.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  return missing.length > 0 ? `${missing.join(', ')} not installed (apt-get install fastp bwa samtools)` : undefined;
}

/** samtools' stdout, asserting it succeeded. */
export function samtools(args: string[]): string {
  const ran = spawnSync('samtools', args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(ran.status, 0, `samtools ${args.join(' ')}: ${ran.stderr}`);
  return ran.stdout;
}

/** A flagstat report's counts by line: { 'in total': 4000, 'mapped': 3990, ... } (QC-passed reads). */
export function flagstatCounts(report: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of report.trim().split('\n')) {
    const match = /^(\d+) \+ \d+ (.+?)(?: \(.*)?$/.exec(line);
    if (match) counts[match[2]!] = Number(match[1]);
  }
  return counts;
}
