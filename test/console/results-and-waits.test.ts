/**
 * The console's answers to "where are my results?" and "why is my job waiting?" (issue 22, items 11 and 12), in a
 * real headless Chromium against a real server running real jobs: a job waiting for CPUs says so under its state and
 * in its panel (in English and in Chinese); the task page's Outputs section lists what the task stored, with sizes,
 * states, the node that wrote each item and a download button, and marks a failed task's items partial; the data page
 * names the task and node that produced an item, a link to that job. Screenshots in test-artifacts/console/ (rw-*).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir, missingBrowser, openConsolePage, signIn, type BrowserLog } from '../helpers/console.js';
import { skipWithout } from '../helpers/components.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, upload, waitForJob } from '../helpers/tasks.js';
import { createWorkflow, registerTool, template, toolId } from '../helpers/workflows.js';

const skip = skipWithout(missingBrowser());
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n';
const scratch = mkdtempSync(join(tmpdir(), 'gdflow-console-rw-'));
const flag = join(scratch, 'release');

let server: TestServer;
let alice: TestAccount;
let browser: Browser;
let page: Page;
let log: BrowserLog;
let step = 0;
let taskId = '';

async function shot(name: string): Promise<void> {
  step++;
  await page.screenshot({ path: join(artifactsDir(), `rw-${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
}

describe('the console says where results are and why jobs wait', { skip, timeout: 180_000 }, () => {
  before(async () => {
    // The host executor (the hold job waits for a file of this test), without the call cache (whose look-ups ahead of
    // a start would change the order in which the jobs are tried).
    server = await startTestServer({ cpus: 2, executor: 'host', callCaching: 'off' });
    alice = await server.account();
    const requirements = (cpu: number) => ({
      container: { image: 'debian:bookworm', type: 'docker' },
      resources: { cpu, mem: '64m', disk: '64m', network: false },
    });
    const outputs = { out: { type: 'file', formats: 'txt' } };
    await registerTool(alice, 'copy', {
      cmd_template: 'cat {{ inputs.reads[0].path }} > {{ outputs.out[0].path }}',
      inputs: { reads: { type: 'file', formats: ['fastq'], required: true } },
      outputs: { out: { type: 'file', formats: 'fastq', required: true } },
      requirements: requirements(1),
    });
    const release = `while [ ! -e ${flag} ]; do sleep 0.1; done; echo x > {{ outputs.out[0].path }}; exit 3`;
    await registerTool(alice, 'hold', { cmd_template: release, outputs, requirements: requirements(1) });
    await registerTool(alice, 'wide', { cmd_template: 'echo wide > {{ outputs.out[0].path }}', outputs, requirements: requirements(2) });
    await createWorkflow(alice, 'results', {
      nodelist: [
        { node_id: 'reads', app_id: 'loaddata', alias: 'reads', outputs: { data: { enid: 'in' } } },
        {
          node_id: 'copy',
          app_id: await toolId(alice, 'copy', 1),
          alias: 'copy reads',
          inputs: { reads: [{ enid: 'in' }] },
          outputs: { out: [{ enid: 'copied' }] },
        },
        { node_id: 'keep', app_id: 'storedata', alias: 'keep copy', inputs: { data: { enid: 'copied' } } },
        { node_id: 'hold', app_id: await toolId(alice, 'hold', 1), alias: 'hold a CPU', outputs: {} },
        { node_id: 'wide', app_id: await toolId(alice, 'wide', 1), alias: 'two CPUs', outputs: { out: [{ enid: 'w' }] } },
        { node_id: 'keep_wide', app_id: 'storedata', alias: 'keep wide', inputs: { data: { enid: 'w' } } },
      ],
    });
    await upload(alice, '/reads/s1.fastq', READS);
    ({ browser, page, log } = await openConsolePage());
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('shows what a job waits for under its state and in its panel, in English and in Chinese', async () => {
    const parameters = await template(alice, 'results');
    parameters.Inputs.reads.data[0].name = '/reads/s1.fastq';
    parameters.Outputs.keep.data[0].name = '/results/rw/copy.fastq';
    parameters.Outputs.keep_wide.data[0].name = '/results/rw/wide.txt';
    ({ task_id: taskId } = await activate(alice, { workflow_name: 'results', workflow_version: 1, task_name: 'results_run', parameters }));
    await waitForJob(alice, taskId, 'keep', 'succeeded');
    await page.goto(`${server.url}/console/`);
    await signIn(page, alice);
    await page.goto(`${server.url}/console/#/tasks/${taskId}`);
    const wideRow = page.locator('table.jobs tr', { has: page.getByRole('link', { name: 'two CPUs' }) });
    await wideRow.locator('.wait-note', { hasText: /^waiting for 2 CPUs \(\d free\)$/ }).waitFor();
    await shot('task-job-waits');
    await page.getByRole('link', { name: 'two CPUs' }).click();
    // By its class: its accessible name changes with the language.
    const panel = page.locator('aside.panel');
    await panel.getByText(/^waiting for 2 CPUs \(\d free\)$/).waitFor();
    assert.match(await panel.innerText(), /Reason\s+waiting for 2 CPUs \(\d free\)/, 'its reason says what it waits for');
    assert.equal(await panel.locator('.wait-fact').count(), 0, 'said once, not again as its wait');
    await shot('task-job-panel-wait');
    // A job that waits for an upstream job: its reason is general, its wait names the job.
    await page.getByRole('link', { name: 'keep wide' }).click();
    await panel.locator('.wait-fact', { hasText: /^waiting for upstream job wide$/ }).waitFor();
    await page.getByRole('link', { name: 'two CPUs' }).click();
    await page.getByRole('button', { name: '切换到中文' }).click();
    await wideRow.locator('.wait-note', { hasText: /^等待 2 个 CPU（空闲 \d 个）$/ }).waitFor();
    await panel.getByText(/^等待 2 个 CPU（空闲 \d 个）$/).waitFor();
    await shot('task-job-waits-chinese');
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('heading', { name: 'Outputs' }).waitFor();
  });

  it("lists the task's outputs with states and a download, and marks them partial once the task fails", async () => {
    const outputs = page.locator('section.task-outputs');
    await outputs.locator('tr.out-stored').waitFor();
    const copy = outputs.locator('tr', { hasText: '/results/rw/copy.fastq' });
    assert.match(await copy.innerText(), new RegExp(`/results/rw/copy\\.fastq\\s+${READS.length} B\\s+stored\\s+copy\\.out`));
    assert.match(await outputs.locator('tr', { hasText: '/results/rw/wide.txt' }).innerText(), /not stored yet/);
    await shot('task-outputs-running');
    const [file] = await Promise.all([page.waitForEvent('download'), copy.getByRole('button', { name: 'Download /results/rw/copy.fastq' }).click()]);
    assert.equal(file.suggestedFilename(), 'copy.fastq');
    assert.equal(readFileSync(await file.path(), 'utf8'), READS);

    writeFileSync(flag, '');
    await page.locator('h1 .badge', { hasText: 'failed' }).waitFor({ timeout: 30_000 });
    await outputs.locator('.notice', { hasText: 'The task failed: what it stored is only part of its outputs.' }).waitFor();
    await copy.locator('.badge.partial', { hasText: 'partial' }).waitFor();
    assert.match(await outputs.locator('tr', { hasText: '/results/rw/wide.txt' }).innerText(), /not stored/);
    assert.equal(await outputs.locator('tr', { hasText: '/results/rw/wide.txt' }).getByRole('button').count(), 0, 'nothing to download');
    assert.equal(await page.locator('.wait-note').count(), 0, 'nothing waits any more');
    await shot('task-outputs-partial');
  });

  it('names the task and node that produced a data item, a link to that job', async () => {
    await page.goto(`${server.url}/console/#/data?prefix=%2Fresults%2Frw%2F`);
    const row = page.locator('table.data tr', { hasText: 'copy.fastq' });
    await row.locator('.produced-by').waitFor();
    assert.match(await row.locator('.produced-by').innerText(), /^results_run \/ copy partial$/);
    await shot('data-produced-by');
    await row.getByRole('link', { name: 'results_run' }).click();
    await page
      .getByRole('complementary', { name: 'Selected job' })
      .getByRole('heading', { name: /copy reads/ })
      .waitFor();
    assert.match(page.url(), new RegExp(`#/tasks/${taskId}\\?job=copy$`));
    // An uploaded item was produced by no task.
    await page.goto(`${server.url}/console/#/data?prefix=%2Freads%2F`);
    const upload = page.locator('table.data tr', { hasText: 's1.fastq' });
    await upload.waitFor();
    assert.equal(await upload.locator('.produced-by').count(), 0);
    await shot('data-uploaded-no-producer');
    const { items } = await alice.api.json<any>('GET', `/accounts/${alice.name}/data/`, { query: { prefix: '/results/rw/copy.fastq' } });
    assert.equal(items[0].produced_by.job_id.endsWith('_copy'), true);
  });

  it('fits a narrow window: the outputs and the producers scroll in their tables, not the page', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    const overflow = async () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    await page.goto(`${server.url}/console/#/tasks/${taskId}`);
    await page.locator('section.task-outputs tr.out-stored').waitFor();
    assert.ok((await overflow()) <= 1, 'the task page does not scroll sideways');
    await shot('narrow-task-outputs');
    await page.goto(`${server.url}/console/#/data?prefix=%2Fresults%2Frw%2F`);
    await page.locator('table.data .produced-by').waitFor();
    assert.ok((await overflow()) <= 1, 'the data page does not scroll sideways');
    await shot('narrow-data-produced-by');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no page error and no console error', () => {
    assert.deepEqual(log.errors, []);
    for (const refusal of log.refusals) assert.match(refusal, /status of (400|401|404)/, refusal);
  });
});
