/**
 * A CWL expression that spins does not hold up the server (issue 24, "Sandbox"; docs/cwl.md, "Expressions"): a
 * `gdflow serve` process runs a step whose JavaScript loops until its time limit (--expression-timeout), and GetTool,
 * asked again and again meanwhile, keeps answering. The expression runs in the sandbox's worker threads, not on the
 * server's event loop: were it on the event loop, no answer would come for the whole spin.
 *
 * The bound asserted is generous on purpose (no timing thresholds that load can break): the longest GetTool while the
 * expression spins must be under half the spin, which a blocked event loop (one answer after the whole spin) cannot
 * meet and a loaded machine meets by far. The 50 ms is measured, and printed as a diagnostic
 * (median, 99th percentile, longest; idle and while spinning), not asserted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { getCwlRun, runCwl, waitForCwlRun } from '../helpers/cwl-runs.js';
import { ServedAccount } from '../helpers/process.js';
import { projectPath } from '../helpers/server.js';
import { registerTool } from '../helpers/workflows.js';

const SPIN_SECONDS = 4;
const dataDir = mkdtempSync(join(tmpdir(), 'gdflow-cwl-spin-'));
let served: ServedAccount | undefined;

after(async () => {
  await served?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const spinner = {
  cwlVersion: 'v1.2',
  class: 'ExpressionTool',
  requirements: { InlineJavascriptRequirement: {} },
  inputs: {},
  outputs: { never: 'int' },
  expression: '${ var turns = 0; while (true) { turns++; } return {never: turns}; }',
};

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const summary = (ms: number[]): string => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${ms.length} answers, median ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, longest ${sorted.at(-1)!.toFixed(1)} ms`;
};

describe('GetTool while a CWL expression spins', { timeout: 120_000 }, () => {
  it('answers all along the spin, which ends at its time limit and fails its step', async (t) => {
    served = await ServedAccount.start(dataDir, 'spinner', ['--expression-timeout', String(SPIN_SECONDS), '--cpus', '2']);
    const { account } = served;
    await registerTool(account, 'bwa_mem', {
      cmd_template: 'bwa mem {{ inputs.ref[0].path }} {{ inputs.reads[0].path }} > {{ outputs.sam[0].path }}',
      inputs: { ref: { type: 'file', formats: ['fasta'], required: true }, reads: { type: 'file', formats: ['fastq'], required: true } },
      outputs: { sam: { type: 'file', formats: 'sam', required: true } },
      requirements: { container: { image: 'localhost/gdflow-demo:latest' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } },
    });
    const getTool = async (): Promise<number> => {
      const started = performance.now();
      const got = await account.api.json<{ tools: Array<{ configs: { name: string } }> }>('GET', projectPath(account.name, 'tools/bwa_mem/'));
      assert.equal(got.tools[0]!.configs.name, 'bwa_mem');
      return performance.now() - started;
    };

    const idle: number[] = [];
    for (let i = 0; i < 50; i++) idle.push(await getTool());

    const posted = performance.now();
    const { task_id } = await runCwl(account, { document: spinner });
    const during: number[] = [];
    let run = await getCwlRun(account, task_id);
    while (!['succeeded', 'failed', 'stopped'].includes(run.status)) {
      for (let i = 0; i < 10; i++) during.push(await getTool());
      run = await getCwlRun(account, task_id);
    }
    const spinMs = performance.now() - posted;
    t.diagnostic(`GetTool idle: ${summary(idle)}`);
    t.diagnostic(`GetTool while the expression spun (${(spinMs / 1000).toFixed(1)} s): ${summary(during)}`);

    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', new RegExp(`exceeded its ${SPIN_SECONDS} s time limit`));
    assert.ok(spinMs >= SPIN_SECONDS * 1000, `the run ended after ${spinMs.toFixed(0)} ms, before its expression could have spun ${SPIN_SECONDS} s`);
    // A blocked event loop answers once, after the whole spin; a free one answers all along.
    assert.ok(during.length >= 20, `only ${during.length} GetTool answers during a ${spinMs.toFixed(0)} ms spin`);
    const longest = Math.max(...during);
    assert.ok(longest < spinMs / 2, `a GetTool took ${longest.toFixed(0)} ms of a ${spinMs.toFixed(0)} ms spin`);
    // The sandbox is still well: the next expression runs.
    const next = await runCwl(account, { document: { ...spinner, expression: '$({never: 42})' } });
    const nextRun = await waitForCwlRun(account, next.task_id);
    assert.equal(nextRun.status, 'succeeded', nextRun.reason ?? '');
    assert.equal(nextRun.outputs!.never, 42);
  });
});
