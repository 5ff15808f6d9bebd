/**
 * The web console (issue 16) in a real headless Chromium (playwright-core) against a real server running real jobs
 * (the bwrap executor): a wrong secret, sign-in, tools (definition, a new version from edited YAML with inline
 * errors), a workflow graph (and one of 200 nodes), data (upload with progress, download, delete), a task started
 * from the run form that reaches succeeded on its page without a reload, a job's log, stopping and deleting a
 * running task, Chinese with the API's Chinese message, a narrow window, the keyboard, sign-out. Each step saves a
 * screenshot in test-artifacts/console/. No page error and no console error may occur, beyond Chromium's own line
 * for each API refusal (4xx) the steps provoke; every request stays on the server's origin.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir, missingBrowser, openConsolePage, registerWideWorkflow, signIn, type BrowserLog } from '../helpers/console.js';
import { skipWithout } from '../helpers/components.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createWorkflow, registerTool, toolId, TOOLS } from '../helpers/workflows.js';
import { download as downloadData } from '../helpers/tasks.js';

const skip = skipWithout(missingBrowser());
const requirements = TOOLS.trim!.requirements;
const READS = '@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nTTTTGGGG\n+\nIIIIIIII\n';

let server: TestServer;
let alice: TestAccount;
let browser: Browser;
let page: Page;
let log: BrowserLog;
const origins = new Set<string>();
let step = 0;

async function shot(name: string): Promise<void> {
  step++;
  await page.screenshot({ path: join(artifactsDir(), `${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
}

/** The task page's state badge (in its heading). */
const taskState = () => page.locator('h1 .badge');

describe('the web console in Chromium', { skip }, () => {
  before(async () => {
    server = await startTestServer({ cpus: 2 });
    alice = await server.account();
    // greet: a job that runs a moment and writes to its log; slow: one that runs until stopped.
    await registerTool(alice, 'greet', {
      description: 'says hello and copies its reads',
      cmd_template:
        'echo "hello from {{ inputs.reads[0].path }}"; sleep 2; echo "quality {{ parameters.quality }}" >&2; cat {{ inputs.reads[0].path }} > {{ outputs.out[0].path }}',
      inputs: { reads: { type: 'file', formats: ['fastq', 'fq'], required: true, minitems: 1, maxitems: 1, hint: 'the reads' } },
      outputs: { out: { type: 'file', formats: 'fastq', required: true } },
      parameters: { quality: { type: 'integer', default: 20, minvalue: 0, maxvalue: 60, hint: 'minimum base quality' } },
      requirements,
    });
    await createWorkflow(alice, 'greet_wf', {
      nodelist: [
        { node_id: 'reads', app_id: 'loaddata', name: 'loaddata', alias: 'reads', outputs: { data: { enid: 'in' } } },
        {
          node_id: 'work',
          app_id: await toolId(alice, 'greet', 1),
          alias: 'greet',
          inputs: { reads: [{ enid: 'in' }] },
          outputs: { out: [{ enid: 'out' }] },
          parameters: { quality: { value: 25, variable: true } },
        },
        {
          node_id: 'save',
          app_id: 'storedata',
          name: 'storedata',
          alias: 'keep',
          inputs: { data: { enid: 'out' } },
          parameters: { name: { value: '/results/greeted.fastq' } },
        },
      ],
    });
    await registerTool(alice, 'slow', {
      cmd_template: 'echo started; sleep 300; echo x > {{ outputs.out[0].path }}',
      outputs: { out: { type: 'file', formats: 'txt' } },
      requirements,
    });
    await createWorkflow(alice, 'slow_wf', {
      nodelist: [
        { node_id: 'wait', app_id: await toolId(alice, 'slow', 1), alias: 'wait a long time', outputs: { out: [{ enid: 'o' }] } },
        { node_id: 'save', app_id: 'storedata', name: 'storedata', inputs: { data: { enid: 'o' } } },
      ],
    });
    await registerWideWorkflow(alice, 'wide', 49);
    artifactsDir(true);
    ({ browser, page, log } = await openConsolePage());
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('is served at /console/ with a strict Content-Security-Policy', async () => {
    const response = await fetch(`${server.url}/console/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'scripts from the server only, none inline');
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await response.text();
    assert.doesNotMatch(html, /<script>|<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from elsewhere');
    const script = /src="(\/console\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${server.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(js.status, 200);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${server.url}/console/nope.js`)).status, 404);
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    assert.equal(root.headers.get('location'), '/console/');
  });

  it('says clearly that a wrong secret is wrong, and signs in with the right one', async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByLabel('Access key ID').waitFor();
    await shot('sign-in');
    await page.getByLabel('Access key ID').fill(alice.accessKeyId);
    await page.getByLabel('Access key secret').fill('not-the-secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /access key secret is wrong/);
    await shot('sign-in-wrong-secret');
    await signIn(page, alice);
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    assert.equal(await page.evaluate("localStorage.getItem('gdflow.console.session')"), null, 'the key is never in localStorage');
    assert.doesNotMatch(page.url(), new RegExp(alice.accessKeySecret), 'nor in the URL');
    await shot('tasks-empty');
  });

  it('lists tools and shows a definition', async () => {
    await page.getByRole('link', { name: 'Tools', exact: true }).click();
    await page.getByRole('link', { name: 'greet', exact: true }).click();
    await page.getByRole('heading', { name: 'Command template' }).waitFor();
    const text = await page.locator('main').innerText();
    for (const expected of ['debian:bookworm', 'fastq, fq', 'minimum base quality', 'echo "hello from', '1 CPU, 256m memory'])
      assert.ok(text.includes(expected), expected);
    await shot('tool-definition');
  });

  it('makes a new tool version from edited YAML, showing errors on their lines', async () => {
    await page.getByRole('link', { name: 'New version from this one' }).click();
    const editor = page.getByLabel('Tool definition (YAML)');
    await editor.waitFor();
    const original = await editor.inputValue();
    assert.match(original, /^app:\n {2}name: greet\n/);
    // A YAML syntax error: its line.
    await editor.fill(`${original}  broken: [\n`);
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.locator('#tool-problems').waitFor();
    assert.match(await page.locator('#tool-problems').innerText(), /^Line \d+/);
    // A definition the server refuses: its message on the member's line, and no version left behind.
    const refused = original.replace(/formats: \[ ?fastq, fq ?\]/, 'formats: 3');
    assert.notEqual(refused, original);
    await editor.fill(refused);
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.locator('#tool-problems', { hasText: 'formats' }).waitFor();
    const problem = await page.locator('#tool-problems').innerText();
    const line = Number(/Line (\d+)/.exec(problem)?.[1]);
    assert.match(refused.split('\n')[line - 1]!, /formats: 3/, `the error points at the line of formats: ${problem}`);
    assert.match(problem, /inputs\.reads\.formats/);
    assert.equal(await page.locator('.gutter .bad').innerText(), String(line));
    await shot('tool-edit-refused');
    const { tools } = await alice.api.json<any>('GET', `/accounts/${alice.name}/projects/default/tools/greet/`);
    assert.equal(tools.length, 1, 'the refused version was removed');
    // A valid edit: version 2.
    await editor.fill(original.replace('says hello and copies its reads', 'says hello, version two'));
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('heading', { name: /greet v2/ }).waitFor();
    assert.ok((await page.locator('main').innerText()).includes('says hello, version two'));
    await shot('tool-version-2');
  });

  it('draws a workflow graph and shows a clicked node', async () => {
    await page.getByRole('link', { name: 'Workflows', exact: true }).click();
    await page.getByRole('link', { name: 'greet_wf', exact: true }).click();
    await page.locator('svg[data-nodes="3"]').waitFor();
    assert.equal(await page.locator('.node.kind-load').count(), 1);
    assert.equal(await page.locator('.node.kind-store').count(), 1);
    assert.deepEqual(await page.locator('.edge-label').allTextContents(), ['reads', 'fastq']);
    await page.locator('[data-node="work"]').click();
    const panel = page.getByRole('complementary', { name: 'Selected node' });
    await panel.getByRole('link', { name: 'greet v1' }).waitFor();
    assert.match(await panel.innerText(), /quality\s+25/);
    await shot('workflow-graph');
    // The keyboard selects too.
    await page.locator('[data-node="save"]').focus();
    await page.keyboard.press('Enter');
    await panel.getByRole('heading', { name: 'keep' }).waitFor();
  });

  it('draws a 200-node graph readably: no node on another, text at 70% or more', async () => {
    await page.goto(`${server.url}/console/#/workflows/wide/1`);
    await page.locator('svg[data-nodes="200"]').waitFor();
    const boxes: Array<{ left: number; right: number; top: number; bottom: number }> = await page
      .locator('.node rect')
      .evaluateAll((rects) => rects.map((r) => r.getBoundingClientRect().toJSON()));
    assert.equal(boxes.length, 200);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        const overlap = a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
        assert.ok(!overlap, `nodes ${i} and ${j} overlap`);
      }
    }
    const zoom = Number((await page.locator('.graph-tools .zoom').innerText()).replace('%', ''));
    assert.ok(zoom >= 70, `zoom ${zoom}%`);
    await shot('workflow-graph-200');
    await page.getByRole('button', { name: 'Fit' }).click();
    await shot('workflow-graph-200-fit');
  });

  it('uploads data with progress, downloads it and deletes it', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByLabel('Open or make a folder').fill('reads');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByLabel('Upload files to /reads/').waitFor();
    const big = Buffer.alloc(4 * 1024 * 1024, 'ACGT\n');
    await page.getByLabel('Upload files to /reads/').setInputFiles([
      { name: 's1.fastq', mimeType: 'application/octet-stream', buffer: Buffer.from(READS) },
      { name: 'big.fq', mimeType: 'application/octet-stream', buffer: big },
    ]);
    await page.getByRole('progressbar', { name: 'Upload of /reads/big.fq' }).waitFor();
    await page.locator('.upload.done').nth(1).waitFor();
    assert.equal(await page.getByRole('progressbar', { name: 'Upload of /reads/big.fq' }).getAttribute('aria-valuenow'), '100');
    await page.getByRole('cell', { name: 's1.fastq', exact: true }).waitFor();
    assert.equal(await downloadData(alice, '/reads/s1.fastq'), READS, 'the upload reached the store intact');
    await shot('data-uploaded');
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download s1.fastq' }).click()]);
    assert.equal(file.suggestedFilename(), 's1.fastq');
    assert.equal(readFileSync(await file.path(), 'utf8'), READS);
    await page.getByRole('button', { name: 'Delete big.fq' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this data item?' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('cell', { name: 'big.fq', exact: true }).waitFor({ state: 'detached' });
    await shot('data-after-delete');
  });

  it('starts a task from the run form, follows it live to succeeded and shows a job log', async () => {
    await page.getByRole('link', { name: 'Workflows', exact: true }).click();
    await page.getByRole('link', { name: 'Run greet_wf' }).click();
    await page.getByRole('heading', { name: 'Run greet_wf v1' }).waitFor();
    // Checked in the browser first: a missing input, a value out of range.
    await page.getByLabel('quality (integer)').fill('99');
    await page.getByRole('button', { name: 'Start task' }).click();
    await page.getByText('The largest value is 60.').waitFor();
    await page.getByText('Choose a data item.').waitFor();
    await shot('run-form-errors');
    await page.getByLabel('quality (integer)').fill('30');
    await page.getByRole('button', { name: /Choose from the data store for reads/ }).click();
    const picker = page.getByRole('dialog', { name: 'Choose a data item' });
    await picker.getByRole('button', { name: '/reads/s1.fastq' }).click();
    assert.equal(await page.locator('#in-reads-0').inputValue(), '/reads/s1.fastq');
    await page.getByLabel('Task name').fill('console_run');
    await shot('run-form-filled');
    await page.getByRole('button', { name: 'Start task' }).click();
    await page.getByRole('heading', { name: /console_run/ }).waitFor();
    const url = page.url();
    // Live: the page shows the job running, then the task succeeded, without being reloaded.
    await page.locator('[data-node="work"].st-running').waitFor({ timeout: 30_000 });
    await shot('task-running');
    await taskState().filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    assert.equal(page.url(), url);
    await page.locator('[data-node="work"].st-succeeded').waitFor();
    await page.locator('[data-node="work"]').click();
    const job = page.getByRole('complementary', { name: 'Selected job' });
    await job.locator('pre.cmd', { hasText: 'echo "hello from /var/data/inputs/reads/s1.fastq"' }).waitFor();
    await job.locator('pre.log', { hasText: 'hello from /var/data/inputs/reads/s1.fastq' }).waitFor();
    assert.match(await job.locator('pre.log').innerText(), /quality 30/);
    assert.match(await job.innerText(), /Attempt\s+1/);
    await shot('task-succeeded-log');
    assert.equal(await downloadData(alice, '/results/greeted.fastq'), READS);
  });

  it('stops a running task and deletes it, each after a confirmation', async () => {
    await page.goto(`${server.url}/console/#/run/slow_wf/1`);
    await page.getByRole('button', { name: 'Start task' }).click();
    await page.locator('[data-node="wait"].st-running').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop this task?' });
    await dialog.waitFor();
    await shot('task-stop-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await taskState().innerText(), 'running', 'cancelling the dialog stops nothing');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await dialog.getByRole('button', { name: 'Stop task' }).click();
    await taskState().filter({ hasText: 'stopped' }).waitFor({ timeout: 30_000 });
    await page.locator('[data-node="wait"].st-cancelled').waitFor();
    await shot('task-stopped');
    const taskId = decodeURIComponent(/#\/tasks\/([0-9a-f]{24})/.exec(page.url())![1]!);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete this task?' }).getByRole('button', { name: 'Delete task' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await assert.rejects(alice.api.send('GET', `/accounts/${alice.name}/projects/default/tasks/${taskId}/`), /404|TaskNotFound|does not exist/);
  });

  it('lists tasks with filters and pages', async () => {
    await page.goto(`${server.url}/console/#/tasks`);
    await page.locator('tr.task-row').first().waitFor();
    assert.equal(await page.locator('tr.task-row').count(), 1);
    await page.getByLabel('State').selectOption('failed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No tasks match.').waitFor();
    await page.getByLabel('State').selectOption('succeeded');
    await page.getByLabel('Name contains').fill('CONSOLE');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: 'console_run' }).waitFor();
    assert.match(page.url(), /status=succeeded/);
    await shot('tasks-filtered');
  });

  it('speaks Chinese, with the API’s Chinese error messages', async () => {
    await page.getByRole('button', { name: '切换到中文' }).click();
    await page.getByRole('link', { name: '任务', exact: true }).waitFor();
    await page.goto(`${server.url}/console/#/run/greet_wf/1`);
    await page.getByRole('heading', { name: '运行 greet_wf v1' }).waitFor();
    await page.locator('#in-reads-0').fill('/reads/s1.fastq');
    await page.locator('#out-save-0').fill('relative/name');
    await page.getByRole('button', { name: '启动任务' }).click();
    const error = page.locator('#out-save-0-error');
    await error.waitFor();
    assert.match(await error.innerText(), /创建任务时给定的输入参数错误/, 'error_message_chs');
    assert.equal(await page.locator('#out-save-0').getAttribute('aria-invalid'), 'true');
    await shot('run-form-chinese-error');
    await page.goto(`${server.url}/console/#/tasks`);
    await page.locator('tr.task-row').first().waitFor();
    await shot('tasks-chinese');
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('link', { name: 'Tasks', exact: true }).waitFor();
  });

  it('fits 1280x800 and a narrow window, and can be used with the keyboard', async () => {
    const overflow = async () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    for (const hash of ['#/tools', '#/workflows/wide/1', '#/data', '#/run/greet_wf/1']) {
      await page.goto(`${server.url}/console/${hash}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      assert.ok((await overflow()) <= 1, `${hash} does not scroll sideways at 1280x800`);
    }
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${server.url}/console/#/tasks`);
    await page.locator('tr.task-row').first().waitFor();
    assert.ok((await overflow()) <= 1, 'the page does not scroll sideways');
    await shot('narrow-tasks');
    await page.getByRole('link', { name: 'console_run' }).click();
    await page.locator('svg[data-nodes]').waitFor();
    assert.ok((await overflow()) <= 1, 'the task page does not scroll sideways (the graph scrolls in its box)');
    await shot('narrow-task');
    await page.setViewportSize({ width: 1280, height: 800 });
    // From the top of a page, Tab reaches the skip link first, then the sections.
    await page.goto(`${server.url}/console/#/tasks`);
    await page.reload();
    await page.locator('tr.task-row').first().waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Tools');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Tools' }).waitFor();
  });

  it('signs out, forgetting the key', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Access key secret').waitFor();
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
    await page.goto(`${server.url}/console/#/tasks`);
    await page.getByLabel('Access key secret').waitFor();
    assert.equal(await page.locator('header.top').count(), 0, 'signed out, the console shows only the sign-in form');
    await shot('signed-out');
  });

  it('logged no page error and no console error, and asked nothing of another origin', () => {
    assert.deepEqual(log.errors, []);
    for (const refusal of log.refusals) assert.match(refusal, /status of (400|401|404)/, refusal);
    assert.deepEqual([...origins], [server.url]);
  });
});
