import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat, { type Family } from 'parse-prometheus-text-format';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/server/start.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { activate, waitForTask } from '../helpers/tasks.js';
import { TOOLS, createWorkflow, registerTool, template, toolId } from '../helpers/workflows.js';

/** GET /metrics over real HTTP, parsed with a Prometheus text-format parser. */

let server: TestServer;
let alice: TestAccount;

before(async () => {
  // On every address, so that a request from this machine's non-loopback address can be made too.
  server = await startTestServer({ host: '0.0.0.0' });
  alice = await server.account();
});
after(async () => server.close());

/** A scrape: the families as the parser reads them, and the text (see histogramCount). */
type Scrape = Map<string, Family> & { text?: string };

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`, { headers });
  assert.equal(response.status, 200, await response.clone().text());
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  // The parser throws on any line that is not valid text format.
  const families: Scrape = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  families.text = text;
  return families;
}

/** The value of the counter or gauge sample whose labels include `labels` (0 when there is none yet). */
function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  assert.ok(family, `no metric family ${name}`);
  const sample = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

/**
 * How many observations a histogram's series with these labels holds. Read from its `_count` line: the parser
 * merges the series of a labelled histogram into one and drops their labels.
 */
function histogramCount(families: Scrape, name: string, labels: Record<string, string>): number {
  assert.ok(families.get(name)?.type === 'HISTOGRAM', `no histogram ${name}`);
  const line = families.text!.split('\n').find((l) => l.startsWith(`${name}_count{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Scrape until `check` holds: the state gauges are reused for a moment between scrapes. */
async function scrapeUntil(check: (families: Scrape) => boolean): Promise<Scrape> {
  for (;;) {
    const families = await scrape(server.url);
    if (check(families)) return families;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('GET /metrics', () => {
  it('has every gdflow family, named gdflow_*', async () => {
    const families = await scrape(server.url);
    for (const name of [
      'gdflow_http_requests_total',
      'gdflow_http_request_duration_seconds',
      'gdflow_tasks',
      'gdflow_jobs',
      'gdflow_worker_queued_jobs',
      'gdflow_worker_running_jobs',
      'gdflow_worker_free_cpus',
      'gdflow_worker_free_memory_bytes',
      'gdflow_job_duration_seconds',
      'gdflow_executor_failures_total',
      'gdflow_store_query_duration_seconds',
      'gdflow_process_cpu_user_seconds_total',
    ]) {
      assert.ok(families.has(name), `missing ${name}`);
    }
    for (const name of families.keys()) assert.match(name, /^gdflow_/);
    assert.equal(families.get('gdflow_http_request_duration_seconds')!.type, 'HISTOGRAM');
    assert.ok(valueOf(families, 'gdflow_worker_free_cpus') > 0);
    assert.ok(histogramCount(families, 'gdflow_store_query_duration_seconds', { statement: 'select' }) > 0);
  });

  it('counts requests by route pattern and status, never by raw URL', async () => {
    const route = '/accounts/:account/projects/:project/tools/';
    const labels = { method: 'GET', route, status: '404' };
    const before = valueOf(await scrape(server.url), 'gdflow_http_requests_total', labels);
    // An empty project answers ListTool with 404.
    for (let i = 0; i < 3; i++) assert.equal((await alice.api.send('GET', projectPath(alice.name, 'tools/')).catch((e: { status: number }) => e)).status, 404);
    const families = await scrape(server.url);
    assert.equal(valueOf(families, 'gdflow_http_requests_total', labels), before + 3);
    assert.ok(histogramCount(families, 'gdflow_http_request_duration_seconds', labels) >= 3);
    const routes = families.get('gdflow_http_requests_total')!.metrics.map((m) => m.labels?.route ?? '');
    assert.ok(!routes.some((r) => r.includes(alice.name)), 'no series names an account');
  });

  it('counts tasks and jobs by state and times the jobs that ran', async () => {
    const requirements = TOOLS.stats!.requirements;
    await registerTool(alice, 'metered_tool', {
      cmd_template: 'echo done > {{ outputs.out[0].path }}',
      outputs: { out: { type: 'file', formats: 'txt' } },
      requirements,
    });
    const app = await toolId(alice, 'metered_tool', 1);
    await createWorkflow(alice, 'metered', {
      nodelist: [
        { node_id: 'work', app_id: app, outputs: { out: [{ enid: 'o' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'o' } } },
      ],
    });
    const first = await scrape(server.url);
    const succeeded = valueOf(first, 'gdflow_tasks', { state: 'succeeded' });
    const jobsTimed = histogramCount(first, 'gdflow_job_duration_seconds', { outcome: 'succeeded' });

    const parameters = await template(alice, 'metered');
    parameters.Outputs.save.data[0].name = '/metered/out.txt';
    const { task_id } = await activate(alice, { workflow_name: 'metered', workflow_version: 1, parameters });
    assert.equal((await waitForTask(alice, task_id)).status, 'succeeded');

    const after = await scrapeUntil((f) => valueOf(f, 'gdflow_tasks', { state: 'succeeded' }) === succeeded + 1);
    assert.equal(histogramCount(after, 'gdflow_job_duration_seconds', { outcome: 'succeeded' }), jobsTimed + 2, 'the tool job and the store job');
    assert.equal(valueOf(after, 'gdflow_worker_running_jobs'), 0);
  });

  it('answers only loopback requests without a token', async () => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!address) return; // no non-loopback interface here: nothing to refuse.
    const port = new URL(server.url).port;
    const response = await fetch(`http://${address}:${port}/metrics`);
    assert.equal(response.status, 403);
    const body = (await response.json()) as Record<string, string>;
    assert.equal(body.error_code, 'AccessDenied');
    assert.match(body.error_message!, /--metrics-token/);
    assert.equal(typeof body.error_message_chs, 'string');
  });
});

describe('GET /metrics with --metrics-token', () => {
  it('requires the bearer token, on an API server and on a worker', async () => {
    const secured = await startTestServer({ metricsToken: 'sekret-token' });
    try {
      const missing = await fetch(`${secured.url}/metrics`);
      assert.equal(missing.status, 401);
      assert.equal(((await missing.json()) as { error_code: string }).error_code, 'MissingAuthorization');
      const wrong = await fetch(`${secured.url}/metrics`, { headers: { Authorization: 'Bearer nope' } });
      assert.equal(wrong.status, 403);
      assert.ok((await scrape(secured.url, { Authorization: 'Bearer sekret-token' })).has('gdflow_tasks'));

      // A worker (--role worker) serves /healthz and /metrics: its own queue and capacity.
      const worker = await startServer(
        loadConfig({
          env: {},
          flags: { port: 0, dataDir: secured.dataDir, database: secured.database, logLevel: 'silent', role: 'worker', metricsToken: 'sekret-token', cpus: 3 },
        }),
      );
      try {
        assert.equal((await fetch(`${worker.url}/metrics`)).status, 401);
        const families = await scrape(worker.url, { Authorization: 'Bearer sekret-token' });
        assert.equal(valueOf(families, 'gdflow_worker_free_cpus'), 3);
        assert.ok(families.has('gdflow_tasks'));
      } finally {
        await worker.close();
      }
    } finally {
      await secured.close();
    }
  });
});
