/**
 * What a lab tripped on in the web console (issue 22, item 14), in a real headless Chromium against a real server
 * running real jobs: the selected job's command and log below the graph, wrapped; the zoom a graph opens at; a job
 * reused from the call cache and its source; Rerun; the value each parameter of a node takes; dates in the task
 * filters as in the list; engine reasons and server refusals in Chinese. Each step is looked at 1280x800 wide and
 * 390 px narrow, and saves both screenshots in test-artifacts/console/lab/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir, missingBrowser, openConsolePage, registerWideWorkflow, type BrowserLog } from '../helpers/console.js';
import { skipWithout } from '../helpers/components.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, upload, waitForTask } from '../helpers/tasks.js';
import { createWorkflow, registerTool, toolId, TOOLS } from '../helpers/workflows.js';

const skip = skipWithout(missingBrowser());
const requirements = TOOLS.trim!.requirements;
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n';
const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 390, height: 800 };
/** A reference path as long as real ones get: one word longer than a phone is wide. */
const REFERENCE = '/var/data/reference/GRCh38_full_analysis_set_plus_decoy_hla_with_alt_contigs_and_a_long_suffix.fa';

let server: TestServer;
let alice: TestAccount;
let browser: Browser;
let page: Page;
let log: BrowserLog;
const tasks: Record<'lab' | 'fail', { id: string; name: string }> = { lab: { id: '', name: '' }, fail: { id: '', name: '' } };

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(artifactsDir(false, 'lab'), `${name}.png`), fullPage: true });
}

/** The page scrolls sideways by this many pixels (0 when it does not). */
const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
const zoom = async () => Number((await page.locator('.graph-tools .zoom').innerText()).replace('%', ''));
const path = (rest: string) => projectPath(alice.name, rest);

/** Open a hash route at a window size (a reload: the graph's zoom is chosen when it is drawn). */
async function open(hash: string, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.goto(`${server.url}/console/${hash}`);
  await page.reload();
}

describe('the console for a lab (issue 22, item 14), in Chromium', { skip }, () => {
  before(async () => {
    server = await startTestServer({ cpus: 2 });
    alice = await server.account();
    // A stand-in for bwa mem: its long command line and log lines, and a parameter the workflow leaves empty.
    await registerTool(alice, 'align', {
      description: 'aligns reads (a stand-in for bwa mem)',
      cmd_template:
        "echo '[M::bwa_idx_load_from_disk] read 0 ALT contigs' >&2; " +
        `echo [main] CMD: bwa mem -t {{ parameters.threads }} -K 100000000 -Y -R {{ parameters.read_group }} ${REFERENCE} ` +
        '{{ inputs.reads[0].path }} {{ inputs.reads[0].path }} >&2; cat {{ inputs.reads[0].path }} > {{ outputs.sam[0].path }}',
      inputs: { reads: { type: 'file', formats: ['fastq'], required: true, minitems: 1, maxitems: 1 } },
      outputs: { sam: { type: 'file', formats: 'sam', required: true } },
      parameters: {
        read_group: { type: 'string', default: '@RG\\tID:sample1\\tSM:sample1\\tPL:ILLUMINA', hint: 'read group header line (-R)' },
        threads: { type: 'integer', default: 1, minvalue: 1, maxvalue: 8 },
      },
      requirements,
    });
    await createWorkflow(alice, 'lab_wf', {
      nodelist: [
        { node_id: 'reads', app_id: 'loaddata', name: 'loaddata', alias: 'reads', outputs: { data: { enid: 'in' } } },
        {
          node_id: 'align',
          app_id: await toolId(alice, 'align', 1),
          alias: 'bwa mem',
          inputs: { reads: [{ enid: 'in' }] },
          outputs: { sam: [{ enid: 'sam' }] },
          parameters: { read_group: { variable: true }, threads: { value: 2, variable: false } },
        },
        {
          node_id: 'keep',
          app_id: 'storedata',
          name: 'storedata',
          alias: 'keep',
          inputs: { data: { enid: 'sam' } },
          parameters: { name: { value: '/lab/aligned.sam' } },
        },
      ],
    });
    await registerTool(alice, 'failing', {
      cmd_template: 'echo "about to fail" >&2; exit 3; echo x > {{ outputs.out[0].path }}',
      outputs: { out: { type: 'file', formats: 'txt' } },
      retry: { max_attempts: 2, on: ['exit_code'] },
      requirements,
    });
    await createWorkflow(alice, 'fail_wf', {
      nodelist: [
        { node_id: 'boom', app_id: await toolId(alice, 'failing', 1), alias: 'boom', outputs: { out: [{ enid: 'o' }] } },
        { node_id: 'save', app_id: 'storedata', name: 'storedata', inputs: { data: { enid: 'o' } } },
      ],
    });
    await registerWideWorkflow(alice, 'medium', 6);
    await registerWideWorkflow(alice, 'wide', 49);
    await upload(alice, '/lab/sample_R1.fastq', READS);
    const template = await alice.api.json<any>('GET', path('executable-workflows/lab_wf/'), { query: { workflow_version: 1 } });
    template.parameter.Inputs.reads.data[0].name = '/lab/sample_R1.fastq';
    const lab = await activate(alice, { workflow_name: 'lab_wf', workflow_version: 1, task_name: 'lab_run', parameters: template.parameter });
    const fail = await activate(alice, { workflow_name: 'fail_wf', workflow_version: 1, task_name: 'fail_run' });
    assert.equal((await waitForTask(alice, lab.task_id)).status, 'succeeded');
    assert.equal((await waitForTask(alice, fail.task_id)).status, 'failed');
    tasks.lab = { id: lab.task_id, name: lab.task_name };
    tasks.fail = { id: fail.task_id, name: fail.task_name };
    artifactsDir(true, 'lab');
    ({ browser, page, log } = await openConsolePage({ viewport: WIDE, signedIn: { url: server.url, account: alice } }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("a: shows the selected job's command and log below the graph, as wide as the page, wrapped", async () => {
    for (const [size, label] of [
      [WIDE, 'wide'],
      [NARROW, 'narrow'],
    ] as const) {
      await open(`#/tasks/${tasks.lab.id}?job=align`, size);
      const panel = page.getByRole('complementary', { name: 'Selected job' });
      await panel.locator('pre.log', { hasText: '[main] CMD: bwa mem' }).waitFor();
      const graph = (await page.locator('.graph').boundingBox())!;
      const box = (await panel.boundingBox())!;
      assert.ok(box.y >= graph.y + graph.height, `${label}: the panel (top ${box.y}) is below the graph (bottom ${graph.y + graph.height})`);
      assert.ok(Math.abs(box.width - graph.width) < 2, `${label}: the panel is as wide as the graph (${box.width} and ${graph.width})`);
      assert.ok(box.width > size.width - 60, `${label}: the panel takes the page's width (${box.width})`);
      for (const pre of ['pre.cmd', 'pre.log']) {
        const [scroll, client] = await panel.locator(pre).evaluate((el) => [el.scrollWidth, el.clientWidth]);
        assert.ok(scroll! <= client!, `${label}: ${pre} wraps instead of scrolling sideways (${scroll} > ${client})`);
      }
      assert.match(await panel.locator('pre.cmd').innerText(), new RegExp(REFERENCE.replace(/\./g, '\\.').slice(0, 40)));
      assert.ok((await overflow()) <= 1, `${label}: the page does not scroll sideways`);
      await shot(`14a-job-below-graph-${label}`);
    }
    // A node chosen in the graph brings its panel into view.
    await open(`#/tasks/${tasks.lab.id}`, WIDE);
    await page.locator('[data-node="reads"]').click();
    const panel = page.getByRole('complementary', { name: 'Selected job' });
    await panel.getByRole('heading', { name: /reads/ }).waitFor();
    const inView = "(() => { const r = document.querySelector('aside.panel').getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; })()";
    await page.waitForFunction(inView);
  });

  it('b: opens a graph whole where it can be read whole, and a big one at a readable zoom', async () => {
    const boxFits = () => page.locator('.graph-box').evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight);
    await open('#/workflows/medium/1', WIDE);
    await page.locator('svg[data-nodes="28"]').waitFor();
    assert.ok((await zoom()) >= 70, `28 nodes open at ${await zoom()}%`);
    assert.ok(await boxFits(), 'the whole 28-node graph is in view, no scrolling');
    await shot('14b-graph-28-whole-wide');
    await open('#/workflows/lab_wf/1', WIDE);
    await page.locator('svg[data-nodes="3"]').waitFor();
    assert.equal(await zoom(), 100, 'a small graph opens at 100%');
    await open('#/workflows/wide/1', WIDE);
    await page.locator('svg[data-nodes="200"]').waitFor();
    assert.equal(await zoom(), 70, 'a graph too big to be read whole opens at the readable minimum');
    assert.ok(await page.locator('.graph-box').evaluate((el) => el.scrollWidth <= el.clientWidth), 'as wide as its box: it scrolls down only');
    await shot('14b-graph-200-readable-wide');
    // On a phone, readable first: the 28-node graph opens at 70% and its box scrolls.
    await open('#/workflows/medium/1', NARROW);
    await page.locator('svg[data-nodes="28"]').waitFor();
    assert.equal(await zoom(), 70);
    assert.equal(await boxFits(), false);
    assert.ok((await overflow()) <= 1, 'the box scrolls, not the page');
    await shot('14b-graph-28-readable-narrow');
  });

  it('c, d: Rerun on an ended task starts the new task and opens it; its reused jobs say "from cache" and link their source', async () => {
    await open(`#/tasks/${tasks.lab.id}`, WIDE);
    await page.getByRole('button', { name: 'Rerun', exact: true }).click();
    await page.getByRole('heading', { name: /lab_run_rerun_/ }).waitFor();
    const rerunId = /#\/tasks\/([0-9a-f]{24})/.exec(page.url())![1]!;
    assert.notEqual(rerunId, tasks.lab.id);
    await page.locator('h1 .badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByRole('button', { name: 'Rerun', exact: true }).count(), 1, 'the ended rerun can be run again');
    await shot('14d-rerun-wide');
    // The API's view: the new task's align job reused the first one's outputs.
    const [before] = (await alice.api.json<any>('GET', path(`tasks/${tasks.lab.id}/jobs/`))).jobs.filter((j: any) => j.node_id === 'align');
    const [again] = (await alice.api.json<any>('GET', path(`tasks/${rerunId}/jobs/`))).jobs.filter((j: any) => j.node_id === 'align');
    assert.equal(again.cached_from, before.job_id);
    const row = page.locator('table.jobs tbody tr', { hasText: 'align' });
    assert.equal(await row.locator('.badge.cached').innerText(), 'from cache');
    await row.getByRole('link').click();
    const panel = page.getByRole('complementary', { name: 'Selected job' });
    const source = panel.getByRole('link', { name: 'align in task lab_run' });
    await source.waitFor();
    assert.match(await panel.locator('h2').innerText(), /from cache/);
    await shot('14c-cached-job-wide');
    await page.setViewportSize(NARROW);
    assert.ok((await overflow()) <= 1, 'narrow: the page does not scroll sideways');
    await shot('14c-cached-job-narrow');
    await page.setViewportSize(WIDE);
    await source.click();
    await page.getByRole('heading', { name: /^lab_run/ }).waitFor();
    assert.ok(page.url().endsWith(`#/tasks/${tasks.lab.id}?job=align`), page.url());
    await panel.locator('pre.cmd').waitFor();
    assert.equal(await panel.locator('.badge.cached').count(), 0, 'the source job ran');
    // Narrow: the Rerun button on the ended task.
    await open(`#/tasks/${tasks.lab.id}`, NARROW);
    await page.getByRole('button', { name: 'Rerun', exact: true }).waitFor();
    await shot('14d-rerun-narrow');
  });

  it("e: shows the value each parameter takes: the tool's default where the workflow leaves it empty", async () => {
    for (const [size, label] of [
      [WIDE, 'wide'],
      [NARROW, 'narrow'],
    ] as const) {
      await open('#/workflows/lab_wf/1?node=align', size);
      const panel = page.getByRole('complementary', { name: 'Selected node' });
      const readGroup = panel.locator('tr', { hasText: 'read_group' });
      await readGroup.waitFor();
      assert.match(await readGroup.innerText(), /^read_group\s+@RG\\tID:sample1\\tSM:sample1\\tPL:ILLUMINA\s+tool default · changeable at run time$/);
      assert.match(await panel.locator('tr', { hasText: 'threads' }).innerText(), /2\s+set by the workflow · fixed/);
      assert.doesNotMatch(await panel.innerText(), /\bnull\b/);
      assert.ok((await overflow()) <= 1, `${label}: the page does not scroll sideways`);
      await shot(`14e-parameter-values-${label}`);
    }
    // That is the value the run used.
    const { jobs } = await alice.api.json<any>('GET', path(`tasks/${tasks.lab.id}/jobs/`));
    const info = await alice.api.json<any>('GET', path(`tasks/${tasks.lab.id}/jobs/${jobs.find((j: any) => j.node_id === 'align').job_id}/`));
    assert.match(info.cmd, /-t 2 .*-R '@RG\\tID:sample1\\tSM:sample1\\tPL:ILLUMINA'/);
  });

  it('f: writes the dates of the task filters as the list writes them, and takes them so', async () => {
    await open('#/tasks', WIDE);
    const created = await page.locator('tr.task-row', { hasText: 'fail_run' }).locator('td').nth(4).innerText();
    const day = /^(\d{4}-\d{2}-\d{2}) \d{2}:\d{2}:\d{2}$/.exec(created)?.[1];
    assert.ok(day, `the list writes ${created}`);
    // The calendar's choice is written in the same form (its own field's value is 2026-11-25 in every locale).
    await page.locator('#f-from ~ input.date-picker').evaluate((el: { value: string; dispatchEvent(e: Event): boolean }, value: string) => {
      el.value = value;
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }, day);
    assert.equal(await page.locator('#f-from').inputValue(), day);
    await page.locator('#f-to').fill(day);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(new RegExp(`from=${day}&to=${day}`));
    await page.locator('tr.task-row', { hasText: 'fail_run' }).waitFor();
    assert.equal(await page.locator('#f-to').inputValue(), day);
    await shot('14f-date-filters-wide');
    await page.locator('#f-to').fill('2000-01-01');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No tasks match.').waitFor();
    await page.locator('#f-from').fill('25/11/2026');
    await page.getByRole('button', { name: 'Apply' }).click();
    assert.match(await page.locator('#f-from-error').innerText(), /^Enter a date as \d{4}-\d{2}-\d{2}\.$/);
    assert.equal(await page.locator('#f-from').getAttribute('aria-invalid'), 'true');
    await shot('14f-date-filter-error-wide');
    await open(`#/tasks?from=${day}&to=${day}`, NARROW);
    await page.locator('tr.task-row').first().waitFor();
    assert.equal(await page.locator('#f-from').inputValue(), day);
    assert.ok((await overflow()) <= 1, 'narrow: the page does not scroll sideways');
    await shot('14f-date-filters-narrow');
  });

  it("g: shows the engine's reasons and the server's refusals in Chinese", async () => {
    await open(`#/tasks/${tasks.fail.id}?job=boom`, WIDE);
    await page.getByRole('button', { name: '切换到中文' }).click();
    const task = await alice.api.json<any>('GET', path(`tasks/${tasks.fail.id}/`));
    assert.equal(task.reason, 'node boom (failing) failed: exit code 3 (attempt 2 of 2, no retries left)', 'the API keeps the English');
    const reason = page.locator('dd.task-reason');
    await reason.filter({ hasText: '节点' }).waitFor();
    assert.equal(await reason.innerText(), '节点 boom（failing）失败：退出码 3（第 2/2 次尝试，不再重试）');
    const panel = page.getByRole('complementary', { name: '所选作业' });
    await panel.locator('table.jobs').waitFor();
    assert.match(await panel.locator('dl.facts').innerText(), /原因\s+退出码 3（第 2\/2 次尝试，不再重试）/);
    assert.deepEqual(await panel.locator('table.jobs tbody tr td:last-child').allInnerTexts(), ['退出码 3', '退出码 3']);
    assert.deepEqual(await panel.locator('table.jobs tbody tr td:nth-child(2)').allInnerTexts(), ['失败', '失败']);
    await shot('14g-reasons-chinese-wide');
    await page.locator('table.jobs').last().getByRole('link', { name: 'save' }).click();
    await panel.getByRole('heading', { name: /save/ }).waitFor();
    assert.match(await panel.locator('dl.facts').innerText(), /原因\s+未运行：节点 boom 失败/);
    // A refusal: the workflow version is gone, so the task cannot be run again; the server's Chinese message.
    await alice.api.send('DELETE', path('workflows/fail_wf/'), { query: { workflow_version: 1 } });
    await page.getByRole('button', { name: '重新运行' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    const text = await refusal.innerText();
    assert.match(text, /^[^A-Za-z]*失败，原因：/, `the message is the server's Chinese one: ${text}`);
    await shot('14g-refusal-chinese-wide');
    await page.setViewportSize(NARROW);
    assert.ok((await overflow()) <= 1, 'narrow: the page does not scroll sideways');
    await shot('14g-reasons-chinese-narrow');
    await page.setViewportSize(WIDE);
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await reason.filter({ hasText: 'node boom' }).waitFor();
  });

  it('logged no page error and no console error', () => {
    assert.deepEqual(log.errors, []);
    for (const refusal of log.refusals) assert.match(refusal, /status of 404/, refusal);
  });
});
