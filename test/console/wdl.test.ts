/**
 * WDL workflows in the web console (docs/console.md, docs/wdl.md), in a real Chromium against a real server: the
 * Workflows page lists them, and a version's page shows its document (read through its signed link), its input
 * template and the tasks that ran it, which link to the task page every task has.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { missingBrowser, openConsolePage, type BrowserLog } from '../helpers/console.js';
import { skipWithout } from '../helpers/components.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { gdpy, gwcForm, LIB, MAIN, sendForm, zipOf } from '../helpers/wdl.js';

describe('WDL workflows in the web console', { skip: skipWithout(missingBrowser()) }, () => {
  let server: TestServer;
  let alice: TestAccount;
  let browser: Browser;
  let page: Page;
  let log: BrowserLog;
  let taskId: string;

  before(async () => {
    server = await startTestServer();
    alice = await server.account();
    const form = gwcForm(
      { name: 'hello_console', description: 'greets from WDL' },
      { source: { filename: 'hello.wdl', data: MAIN }, dependencies: { filename: 'imports.zip', data: zipOf({ 'lib/tasks.wdl': LIB }) } },
    );
    const created = await sendForm(server, alice, 'POST', 'wdl/workflow/', form);
    assert.equal(created.status, 200, created.text);
    const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', {
      workflow_id: created.json().id,
      inputs: { 'hello.who': 'console' },
      task_name: 'wdl_in_console',
    });
    assert.equal(started.status, 200, started.text);
    taskId = started.json().task_id;
    ({ browser, page, log } = await openConsolePage({ signedIn: { url: server.url, account: alice } }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists WDL workflows and shows a version: document, input template, tasks', async () => {
    await page.getByRole('link', { name: 'Workflows', exact: true }).click();
    await page.getByRole('heading', { name: 'WDL workflows' }).waitFor();
    await page.getByRole('link', { name: 'hello_console', exact: true }).click();
    await page.getByRole('heading', { name: 'hello.wdl' }).waitFor();
    await page.getByText('call lib.greet').waitFor();
    const text = await page.locator('main').innerText();
    for (const expected of [
      'greets from WDL',
      'import "lib/tasks.wdl" as lib',
      '"hello.who": "String"',
      '"hello.times": "Int (optional, default = 2)"',
      'Download the imports (imports.zip)',
    ]) {
      assert.ok(text.includes(expected), `${expected} in:\n${text}`);
    }
    await page.getByRole('link', { name: 'wdl_in_console', exact: true }).click();
    await page.waitForURL(new RegExp(`#/tasks/${taskId}`));
    await page.getByRole('heading', { name: /wdl_in_console/ }).waitFor();
    assert.deepEqual(log.errors, []);
  });
});
