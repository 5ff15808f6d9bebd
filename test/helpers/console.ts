/**
 * The web console's tests and benchmark (issue 16): a real headless Chromium driven by playwright-core (Debian's
 * `chromium` package; CHROMIUM_PATH picks another), the workflows they open, and a store filled with many tasks.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { newId } from '../../src/ids.js';
import type { TestAccount, TestServer } from './server.js';
import { repoRoot } from './paths.js';
import { createWorkflow, registerTool, toolId, TOOLS } from './workflows.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium to drive, or undefined when there is none. */
export function chromiumPath(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

/** Why the browser tests cannot run here, or undefined. */
export function missingBrowser(): string | undefined {
  return chromiumPath() ? undefined : 'no Chromium (apt-get install chromium, or set CHROMIUM_PATH)';
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(missingBrowser());
  // --no-sandbox: the tests may run as root (CI does), where Chromium's own sandbox refuses to start.
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
}

/**
 * Where the tests save screenshots: test-artifacts/console/ in the repository (ignored by git), or a folder of it
 * for one test file; `fresh` removes the screenshots a previous run left there (not the other files' folders).
 */
export function artifactsDir(fresh = false, folder = ''): string {
  const dir = join(repoRoot(), 'test-artifacts', 'console', folder);
  mkdirSync(dir, { recursive: true });
  if (fresh) for (const file of readdirSync(dir)) if (file.endsWith('.png')) rmSync(join(dir, file), { force: true });
  return dir;
}

/** Console messages and page errors, for the check that the console logs none. */
export interface BrowserLog {
  errors: string[];
  /** Chromium's "Failed to load resource: ... 4xx" lines: the API's documented refusals (an empty list's 404, a wrong secret's 401). */
  refusals: string[];
}

export function watchPage(page: Page): BrowserLog {
  const log: BrowserLog = { errors: [], refusals: [] };
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const text = `${message.text()} (${message.location().url})`;
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) log.refusals.push(text);
    else log.errors.push(`${message.type()}: ${text}`);
  });
  page.on('pageerror', (error) => log.errors.push(`page error: ${error.message}`));
  return log;
}

/** Sign in through the page's form (the page shows the sign-in form). */
export async function signIn(page: Page, account: Pick<TestAccount, 'accessKeyId' | 'accessKeySecret'>): Promise<void> {
  await page.getByLabel('Access key ID').fill(account.accessKeyId);
  await page.getByLabel('Access key secret').fill(account.accessKeySecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('header.top').waitFor();
}

/** A console page in a browser of its own: what a console test opens before its first case. */
export interface ConsolePage {
  /** To close after the tests (its page and context go with it). */
  browser: Browser;
  page: Page;
  /** The page's console errors and the API's refusals (watchPage), watched from the start. */
  log: BrowserLog;
}

export interface ConsolePageOptions {
  /** The window's size; 1280 x 800 unless a test needs another. */
  viewport?: { width: number; height: number };
  /** Open this server's console and sign in as this account first (through the form, as a user does). */
  signedIn?: { url: string; account: Pick<TestAccount, 'accessKeyId' | 'accessKeySecret'> };
}

/**
 * Launch Chromium, open a page in a new context (downloads accepted: some tests save the files the console offers)
 * and watch it; signed in when asked. A failure on the way closes the browser, which would otherwise outlive the test.
 */
export async function openConsolePage(options: ConsolePageOptions = {}): Promise<ConsolePage> {
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 }, acceptDownloads: true });
    const page = await context.newPage();
    const log = watchPage(page);
    if (options.signedIn) {
      await page.goto(`${options.signedIn.url}/console/`);
      await signIn(page, options.signedIn.account);
    }
    return { browser, page, log };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * A per-sample pipeline of `4 * samples + 4` nodes: one reference, and for each sample a load, trim, align and
 * store; the aligned samples merged, a report of the merge, and its store. 49 samples make 200 nodes.
 */
export async function registerWideWorkflow(account: TestAccount, name: string, samples: number): Promise<number> {
  const requirements = TOOLS.trim!.requirements;
  const tools: Record<string, Record<string, unknown>> = {
    wide_trim: TOOLS.trim!,
    wide_align: TOOLS.align!,
    wide_merge: {
      cmd_template: 'cat {% for b in inputs.bams %}{{ b.path }} {% endfor %}> {{ outputs.merged[0].path }}',
      inputs: { bams: { type: 'file', formats: ['bam'], required: true, minitems: 1, maxitems: 1000 } },
      outputs: { merged: { type: 'file', formats: 'bam', required: true } },
      requirements,
    },
    wide_report: TOOLS.stats!,
  };
  const ids: Record<string, string> = {};
  for (const [tool, definition] of Object.entries(tools)) {
    const existing = await account.api.send('GET', `/accounts/${account.name}/projects/default/tools/${tool}/`).then(
      () => true,
      () => false,
    );
    if (!existing) await registerTool(account, tool, definition);
    ids[tool] = await toolId(account, tool, 1);
  }
  const nodelist: Array<Record<string, unknown>> = [
    { node_id: 'reference', app_id: 'loaddata', name: 'loaddata', alias: 'reference genome', outputs: { data: { enid: 'ref' } } },
  ];
  for (let i = 1; i <= samples; i++) {
    nodelist.push(
      { node_id: `reads_${i}`, app_id: 'loaddata', name: 'loaddata', alias: `sample ${i} reads`, outputs: { data: { enid: `r${i}` } } },
      { node_id: `trim_${i}`, app_id: ids.wide_trim, alias: `trim ${i}`, inputs: { reads: [{ enid: `r${i}` }] }, outputs: { trimmed: [{ enid: `t${i}` }] } },
      {
        node_id: `align_${i}`,
        app_id: ids.wide_align,
        alias: `align ${i}`,
        inputs: { reads: [{ enid: `t${i}` }], reference: [{ enid: 'ref' }] },
        outputs: { bam: [{ enid: `b${i}` }] },
      },
      { node_id: `keep_${i}`, app_id: 'storedata', name: 'storedata', alias: `store ${i}`, inputs: { data: { enid: `b${i}` } } },
    );
  }
  nodelist.push(
    {
      node_id: 'merge',
      app_id: ids.wide_merge,
      alias: 'merge samples',
      inputs: { bams: Array.from({ length: samples }, (_, i) => ({ enid: `b${i + 1}` })) },
      outputs: { merged: [{ enid: 'merged' }] },
    },
    { node_id: 'report', app_id: ids.wide_report, alias: 'report', inputs: { bam: [{ enid: 'merged' }] }, outputs: { report: [{ enid: 'report' }] } },
    { node_id: 'keep_report', app_id: 'storedata', name: 'storedata', alias: 'store report', inputs: { data: { enid: 'report' } } },
  );
  const put = await createWorkflow(account, name, { nodelist });
  if (put.status !== 200) throw new Error(`PutWorkflow of ${name}: ${put.status}`);
  return nodelist.length;
}

/**
 * `count` ended tasks (and three jobs each) in the account's default project, written straight to the store (as
 * many tasks as a busy lab runs in months; ActivateWorkflow would run them). Created one second apart, newest now.
 */
export async function fillTasks(server: TestServer, account: TestAccount, count: number): Promise<void> {
  const store = server.services.store;
  const project = await store.getProject(account.name, 'default');
  const now = Date.now() / 1000;
  const states = ['succeeded', 'succeeded', 'succeeded', 'failed', 'stopped'] as const;
  for (let i = 0; i < count; i++) {
    const id = newId();
    const status = states[i % states.length]!;
    const createdAt = now - (count - i);
    await store.createTask(
      {
        id,
        projectId: project!.id,
        name: `sample_${String(i).padStart(5, '0')}`,
        workflowId: newId(),
        workflowName: 'pipeline',
        workflowVersion: 1,
        userName: account.name,
        status,
        reason: `filled (${status})`,
        parameters: {},
        plan: {},
        scheduleAt: null,
        stopRequested: false,
        createdAt,
      },
      ['load', 'work', 'save'].map((node) => ({
        id: `${id}_${newId()}_${node}`,
        taskId: id,
        nodeId: node,
        name: node,
        status: status === 'succeeded' ? 'succeeded' : 'cancelled',
        reason: '',
        command: '',
        spec: {},
        attempt: 1,
        cpu: 1,
        memMb: 64,
      })),
    );
  }
}
