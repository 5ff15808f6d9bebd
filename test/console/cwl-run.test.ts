/**
 * A CWL run's graph in the console (issue 24: a CWL run is a task like any other, console graph included), in a real
 * headless Chromium against a real server running the run's steps (the host executor, so that a step can wait for a
 * file of this test): the jobs the run adds as it goes are the graph's nodes, each in its state, linked from the jobs
 * it waits for and from the step that added it: a step waiting for another that runs (deferred: its work is decided
 * when its inputs are known), a scatter's instances, a skipped step (`when` false), a subworkflow's step; a node's
 * panel shows its command and log; the graph follows the run live to its end. Screenshots in test-artifacts/console/
 * (cwl-*).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir, missingBrowser, openConsolePage, signIn, type BrowserLog } from '../helpers/console.js';
import { skipWithout } from '../helpers/components.js';
import { jobsOf, runCwl, sayEachWord, waitForCwlRun } from '../helpers/cwl-runs.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const skip = skipWithout(missingBrowser());
const scratch = mkdtempSync(join(tmpdir(), 'gdflow-console-cwl-'));
const release = join(scratch, 'release');

let server: TestServer;
let alice: TestAccount;
let browser: Browser;
let page: Page;
let log: BrowserLog;
let step = 0;

async function shot(name: string): Promise<void> {
  step++;
  await page.screenshot({ path: join(artifactsDir(), `cwl-${String(step).padStart(2, '0')}-${name}.png`), fullPage: true });
}

const echo = {
  class: 'CommandLineTool',
  baseCommand: 'echo',
  inputs: { word: { type: 'string', inputBinding: {} } },
  stdout: 'out.txt',
  outputs: { out: 'stdout' },
};
const cat = {
  class: 'CommandLineTool',
  baseCommand: 'cat',
  inputs: { files: { type: 'File[]', inputBinding: {} } },
  stdout: 'joined.txt',
  outputs: { out: 'stdout' },
};

/** Words said by a scatter, joined by a subworkflow; a step skipped; a gate that waits for this test's file; a last step after the gate. */
const workflow = {
  cwlVersion: 'v1.2',
  class: 'Workflow',
  requirements: { ScatterFeatureRequirement: {}, SubworkflowFeatureRequirement: {}, InlineJavascriptRequirement: {}, MultipleInputFeatureRequirement: {} },
  inputs: { words: 'string[]', go: 'boolean', flag: 'string' },
  outputs: { last: { type: 'File', outputSource: 'last/out' }, maybe: { type: 'File?', outputSource: 'maybe/out' } },
  steps: {
    say: sayEachWord('echo'),
    maybe: { run: echo, when: '$(inputs.go)', in: { go: 'go', word: { default: 'never said' } }, out: ['out'] },
    inner: {
      run: {
        class: 'Workflow',
        inputs: { files: 'File[]' },
        outputs: { joined: { type: 'File', outputSource: 'join/out' } },
        steps: { join: { run: cat, in: { files: 'files' }, out: ['out'] } },
      },
      in: { files: 'say/out' },
      out: ['joined'],
    },
    gate: {
      run: {
        class: 'CommandLineTool',
        baseCommand: ['sh', '-c', 'echo "waiting for $0" >&2; while [ ! -e "$0" ]; do sleep 0.1; done; echo released'],
        inputs: { flag: { type: 'string', inputBinding: {} } },
        stdout: 'gate.txt',
        outputs: { out: 'stdout' },
      },
      in: { flag: 'flag' },
      out: ['out'],
    },
    last: { run: cat, in: { files: { source: ['inner/joined', 'gate/out'], linkMerge: 'merge_flattened' } }, out: ['out'] },
  },
};

describe("a CWL run's graph in the console", { skip, timeout: 180_000 }, () => {
  before(async () => {
    server = await startTestServer({ cpus: 2, executor: 'host' });
    alice = await server.account();
    artifactsDir(false);
    ({ browser, page, log } = await openConsolePage());
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('draws the jobs the run added, each in its state, and follows the run live to its end', async () => {
    const { task_id } = await runCwl(alice, { document: workflow, job: { words: ['one', 'two', 'three'], go: false, flag: release }, name: 'cwl_graph' });
    await page.goto(`${server.url}/console/`);
    await signIn(page, alice);
    await page.goto(`${server.url}/console/#/tasks/${task_id}`);
    await page.getByRole('heading', { name: /cwl_graph/ }).waitFor();

    // While the gate runs: the step after it waits (deferred), everything before it has ended.
    const node = (id: string, state: string) => page.locator(`[data-node="${id}"].st-${state}`);
    await node('main.gate', 'running').waitFor({ timeout: 60_000 });
    await node('main.last', 'waiting').waitFor();
    for (const instance of ['main.say@0', 'main.say@1', 'main.say@2']) await node(instance, 'succeeded').waitFor({ timeout: 30_000 });
    await node('main.say', 'succeeded').waitFor();
    await node('main.maybe', 'skipped').waitFor();
    await node('main.inner.join', 'succeeded').waitFor({ timeout: 30_000 });
    await node('main.inner', 'succeeded').waitFor();
    await node('main', 'running').waitFor();
    const jobs = await jobsOf(alice, task_id);
    assert.equal(await page.locator('svg[role="group"]').getAttribute('data-nodes'), String(jobs.size), 'a node for each job of the task');
    // What the links are drawn from: the jobs a job waits for, and the job whose expansion added it.
    assert.equal(jobs.get('main.say@1').parent, 'main.say');
    assert.deepEqual(jobs.get('main.last').upstream.sort(), ['main.gate', 'main.inner']);
    // A link from each job waited for, else one from the job that added it: say 1, its instances 3, maybe 1, inner 1
    // (from say), inner/join 1, gate 1, last 2 (from inner and gate).
    assert.equal(await page.locator('svg .edges path').count(), 10);
    await shot('running');

    // A node's panel: a scatter instance's command, the gate's log.
    await page.locator('[data-node="main.say@1"]').click();
    const panel = page.getByRole('complementary', { name: 'Selected job' });
    await panel.locator('pre.cmd', { hasText: 'two' }).waitFor();
    await page.locator('[data-node="main.gate"]').click();
    await panel.locator('pre.log', { hasText: `waiting for ${release}` }).waitFor({ timeout: 30_000 });
    await shot('gate-log');

    writeFileSync(release, '');
    await page.locator('h1 .badge').filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await node('main.last', 'succeeded').waitFor();
    await node('main', 'succeeded').waitFor();
    await node('main.maybe', 'skipped').waitFor();
    await shot('succeeded');
    const run = await waitForCwlRun(alice, task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(run.outputs!.maybe, null);
    // The run's "workflow" is its posted document (named after its process), not a registered workflow: no link.
    const fact = page.locator('dl.facts dd').first();
    assert.equal((await fact.textContent())?.trim(), 'document v1');
    await fact.locator('[data-workflow-link="none"]').waitFor();
    assert.equal(await fact.locator('a').count(), 0);
    assert.deepEqual(log.errors, []);
  });

  it("links a run of an imported workflow to that workflow's version", async () => {
    const document = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      inputs: { word: 'string' },
      outputs: {},
      steps: { say: { run: echo, in: { word: 'word' }, out: ['out'] } },
    };
    const path = (rest: string) => projectPath(alice.name, rest);
    await alice.api.json('POST', path('cwl/import/'), { json: { document, name: 'say_word' } });
    const { parameter } = await alice.api.json<any>('GET', path('executable-workflows/say_word/'), { query: { workflow_version: 1 } });
    parameter.Parameters.inputs.parameters.word.value = 'linked';
    const { task_id } = await alice.api.json<any>('POST', path('tasks/'), { json: { workflow_name: 'say_word', workflow_version: 1, parameters: parameter } });
    await page.goto(`${server.url}/console/#/tasks/${task_id}`);
    const link = page.locator('dl.facts dd').first().getByRole('link', { name: 'say_word v1' });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), '#/workflows/say_word/1');
    assert.equal((await waitForCwlRun(alice, task_id)).status, 'succeeded');
    assert.deepEqual(log.errors, []);
  });
});
