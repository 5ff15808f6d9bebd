import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Client } from '../src/client/client.js';
import { fillTasks, launchBrowser, missingBrowser, registerWideWorkflow, signIn, watchPage, type BrowserLog } from '../test/helpers/console.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../test/helpers/server.js';
import { dagre } from './lib/dagre.js';
import type { PageGlobals } from './lib/page-globals.js';
import { machine, median, ROOT } from './lib/processes.js';

/**
 * bench:console — the web console's three targets (issue 16), in a real headless Chromium (test/helpers/console.ts):
 * 1. With BENCH_TASKS (10,000) ended tasks in the store (written straight to it, as the console test helper does),
 *    the task list's first page is interactive within 1 s: from the navigation's start to the first page's rows
 *    painted (the console's `gdflow:tasks-painted` mark, set after the frame that shows them) with the pager's
 *    Older button enabled; then Older is clicked and page 2 timed. Three ways in: a cold load (a new browser
 *    context: empty cache, new renderer), a warm load (the same tab, from about:blank) and a route change inside the
 *    running console. Peer: the same page (size 50) by a signed ListTasks from Node (the SDK).
 * 2. A 200-node workflow lays out and renders within 1 s: the graph page, to its `gdflow:graph-painted` mark with
 *    all 200 nodes in the SVG, the same three ways. Peer: dagre (@dagrejs/dagre) laying out the same boxes and links
 *    in Node, alternating with the console's own layout (console/src/layered.ts, bundled for Node by esbuild).
 * 3. The console's JavaScript in dist/console/, raw and gzipped (level 9, as the server sends it): < 300 KB gzipped.
 * Each measurement BENCH_ITERATIONS (5) times, the peers alternating with the browser in each iteration; medians
 * and maxima. The server runs in this process (startTestServer, SQLite): so do the API peer and dagre.
 */
const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5);
const PAGE_SIZE = 50; // console/src/pages/tasks.tsx
const SAMPLES = 49; // 4 * 49 + 4 = 200 nodes
const VIEWPORT = { width: 1280, height: 800 };

/** What the page's Performance timeline says about one visit, in ms from its start (navigation start, or a mark). */
interface Visit {
  painted: number;
  data: number;
  /** The API request of the page's data, as the browser's resource timing has it. */
  apiStart: number;
  apiEnd: number;
  /** Navigation only: the HTML document's response end; the console's script's request start and response end. */
  html: number | null;
  scriptStart: number | null;
  script: number | null;
  /** JavaScript transferred (bytes on the wire; 0 when from the cache). */
  jsTransferred: number;
  /** Main-thread long tasks (> 50 ms) before the paint, summed. */
  longTasks: number;
  /** The graph's layout time as the console measured it (graph pages only). */
  layoutMs: number | null;
  /** As Playwright saw it from Node: from the goto or the hash change to the mark being found. */
  wall: number;
}

/** Runs in the page (serialized by Playwright: nothing from outside the function). */
function readTimeline(args: { painted: string; data: string; api: string; since: string | null }) {
  const perf = (globalThis as unknown as PageGlobals).performance;
  // The marks waited for are there (the caller waited for the paint mark; the data mark comes before it).
  const last = (name: string) => {
    const entries = perf.getEntriesByName(name);
    const entry = entries[entries.length - 1];
    if (!entry) throw new Error(`no performance entry '${name}'`);
    return entry;
  };
  const origin = args.since ? last(args.since).startTime : 0;
  const painted = last(args.painted);
  const resources = perf.getEntriesByType('resource').filter((r) => r.startTime >= origin);
  const api = resources.filter((r) => r.initiatorType === 'fetch' && new RegExp(args.api).test(r.name)).pop();
  const script = resources.find((r) => /\/console\/main-[^/]*\.js$/.test(r.name));
  const navigation = args.since ? undefined : perf.getEntriesByType('navigation')[0];
  const longTasks = (globalThis as unknown as PageGlobals).__benchLongTasks ?? [];
  return {
    painted: painted.startTime - origin,
    data: last(args.data).startTime - origin,
    apiStart: api ? api.startTime - origin : NaN,
    apiEnd: api ? api.responseEnd - origin : NaN,
    html: navigation ? navigation.responseEnd : null,
    scriptStart: script ? script.startTime - origin : null,
    script: script ? script.responseEnd - origin : null,
    jsTransferred: resources.filter((r) => /\.js$/.test(r.name)).reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
    longTasks: longTasks.filter(([start]) => start >= origin && start < painted.startTime).reduce((sum, [, duration]) => sum + duration, 0),
    layoutMs: painted.detail?.layoutMs ?? null,
  };
}

/** Records the main thread's long tasks from the page's start (an init script, before the console's own). */
const LONG_TASKS = `globalThis.__benchLongTasks = [];
try { new PerformanceObserver((list) => { for (const e of list.getEntries()) globalThis.__benchLongTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' }); } catch {}`;

const elapsedMs = (from: bigint): number => Number(process.hrtime.bigint() - from) / 1e6;

interface Route {
  hash: string;
  painted: string;
  data: string;
  api: string;
}

const TASK_LIST: Route = { hash: '#/tasks', painted: 'gdflow:tasks-painted', data: 'gdflow:tasks-data', api: '/tasks/\\?' };
const GRAPH: Route = { hash: '#/workflows/wide/1', painted: 'gdflow:graph-painted', data: 'gdflow:graph-data', api: '/workflows/wide/graph/' };

/** Loads the console at `route` in `page` (a navigation) and waits for its paint mark. */
async function load(page: Page, url: string, route: Route): Promise<Visit> {
  await page.goto('about:blank'); // else a goto from another console route would only change the hash
  const started = process.hrtime.bigint();
  await page.goto(`${url}/console/${route.hash}`);
  await page.waitForFunction((name) => (globalThis as unknown as PageGlobals).performance.getEntriesByName(name).length > 0, route.painted, { polling: 'raf' });
  const wall = elapsedMs(started);
  return { ...(await page.evaluate(readTimeline, { ...route, since: null })), wall };
}

/** Goes to `route` by a hash change inside the running console (from the page `from` with the heading `heading`, settled first). */
async function routeChange(page: Page, url: string, from: string, heading: string, route: Route): Promise<Visit> {
  await page.goto(`${url}/console/${from}`);
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
  await page.waitForLoadState('networkidle');
  const started = process.hrtime.bigint();
  await page.evaluate((hash) => {
    const perf = (globalThis as unknown as PageGlobals).performance;
    perf.clearMarks();
    perf.clearResourceTimings();
    perf.mark('bench:route');
    (globalThis as unknown as PageGlobals).location.hash = hash;
  }, route.hash);
  await page.waitForFunction((name) => (globalThis as unknown as PageGlobals).performance.getEntriesByName(name).length > 0, route.painted, { polling: 'raf' });
  const wall = elapsedMs(started);
  return { ...(await page.evaluate(readTimeline, { ...route, since: 'bench:route' })), wall };
}

/** The task list is interactive: a full first page, the total, Older enabled. Then Older: ms to page 2's paint. */
async function checkTaskList(page: Page): Promise<number> {
  const rows = await page.locator('tr.task-row').count();
  if (rows !== PAGE_SIZE) throw new Error(`the first page shows ${rows} rows, not ${PAGE_SIZE}`);
  const range = await page.locator('#task-range').innerText();
  if (range.replace(/\D/g, '') !== `1${PAGE_SIZE}${TASKS}`) throw new Error(`the pager says "${range}"`);
  const older = page.getByRole('button', { name: 'Older' });
  if (!(await older.isEnabled())) throw new Error('Older is disabled on the first page');
  // Clicked in the page, so that the time is the console's alone (Playwright's own click waits for actionability).
  const before = await page.evaluate((name) => (globalThis as unknown as PageGlobals).performance.getEntriesByName(name).length, TASK_LIST.painted);
  await page.evaluate(() => {
    const doc = (globalThis as unknown as PageGlobals).document;
    (globalThis as unknown as PageGlobals).performance.mark('bench:older');
    const button = [...doc.querySelectorAll('nav.pager button')].find((b) => b.textContent?.trim() === 'Older');
    if (!button) throw new Error('no Older button in the pager');
    button.click();
  });
  await page.waitForFunction(
    ([name, count]) => (globalThis as unknown as PageGlobals).performance.getEntriesByName(name).length > count,
    [TASK_LIST.painted, before] as const,
    { polling: 'raf' },
  );
  const ms = await page.evaluate((name) => {
    const perf = (globalThis as unknown as PageGlobals).performance;
    const painted = perf.getEntriesByName(name).at(-1);
    const clicked = perf.getEntriesByName('bench:older')[0];
    if (!painted || !clicked) throw new Error(`no '${name}' or 'bench:older' mark`);
    return painted.startTime - clicked.startTime;
  }, TASK_LIST.painted);
  const second = await page.locator('#task-range').innerText();
  if (!second.startsWith(`${PAGE_SIZE + 1}–`)) throw new Error(`after Older the pager says "${second}"`);
  return ms;
}

/** Every node of the 200 is in the SVG. */
async function checkGraph(page: Page, nodes: number): Promise<void> {
  const drawn = await page.locator(`svg[data-nodes="${nodes}"] g.node`).count();
  if (drawn !== nodes) throw new Error(`the graph has ${drawn} nodes drawn, not ${nodes}`);
}

/** The graph's boxes as the console drew them (its measured label widths) and its links, for the Node layouts. */
async function graphInput(page: Page, account: TestAccount) {
  const boxes = await page.evaluate(() =>
    [...(globalThis as unknown as PageGlobals).document.querySelectorAll('svg g.node')].map((g) => {
      const rect = g.querySelector('rect');
      return { id: g.dataset.node ?? '', width: Number(rect?.getAttribute('width')), height: Number(rect?.getAttribute('height')) };
    }),
  );
  const view = await account.api.json<{ edges: Array<{ from: string; to: string }> }>('GET', projectPath(account.name, 'workflows/wide/graph/'), {
    query: { workflow_version: 1 },
  });
  return { nodes: boxes, edges: view.edges.map((e) => ({ from: e.from, to: e.to })) };
}

type LayoutInput = Awaited<ReturnType<typeof graphInput>>;

/** dagre with the console's spacing (graph-layout.ts): left to right, ranks 80 apart, nodes 16, links 6, margin 14. */
function dagreLayout(input: LayoutInput): { width: number; height: number } {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', ranksep: 80, nodesep: 16, edgesep: 6, marginx: 14, marginy: 14 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of input.nodes) g.setNode(node.id, { width: node.width, height: node.height });
  input.edges.forEach((edge, i) => g.setEdge(edge.from, edge.to, {}, `e${i}`));
  dagre.layout(g);
  const graph = g.graph();
  return { width: graph.width ?? NaN, height: graph.height ?? NaN };
}

type Layered = (
  nodes: LayoutInput['nodes'],
  edges: LayoutInput['edges'],
  options: { rankGap: number; nodeGap: number; linkGap: number; margin: number },
) => { width: number; height: number };

/** console/src/layered.ts (browser code, not compiled by tsc for Node), bundled for Node by esbuild. */
async function loadLayered(): Promise<Layered> {
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-bench-console-'));
  try {
    const out = join(dir, 'layered.mjs');
    const result = await build({
      entryPoints: [join(ROOT, 'console', 'src', 'layered.ts')],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'warning',
    });
    writeFileSync(out, result.outputFiles[0]!.contents);
    return ((await import(pathToFileURL(out).href)) as { layered: Layered }).layered;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function timedMs<T>(fn: () => T): [T, number] {
  const started = process.hrtime.bigint();
  const value = fn();
  return [value, elapsedMs(started)];
}

/** The console's JavaScript in dist/console/: each file raw and gzipped at level 9 (what the server sends). */
function bundleSizes(): Array<{ name: string; raw: number; gzipped: number }> {
  const dir = join(ROOT, 'dist', 'console');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .map((name) => {
      const bytes = readFileSync(join(dir, name));
      return { name, raw: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
    })
    .sort((a, b) => b.raw - a.raw);
}

const f = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(ms < 10 ? 2 : 1) : '–');
const stats = (values: number[]) => `median ${f(median(values))} ms, max ${f(Math.max(...values))} ms`;
const list = (values: number[]) => values.map(f).join(', ');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main() {
  const missing = missingBrowser();
  if (missing) throw new Error(`bench:console needs Chromium: ${missing}`);
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const logs: BrowserLog[] = [];
  try {
    server = await startTestServer();
    const account = await server.account('benchconsole');
    const loadAverage = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(', ');
    process.stdout.write(`bench:console on ${machine()}, store SQLite, Chromium headless; ${ITERATIONS} iterations; load average ${loadAverage()}\n`);
    const [, fillMs] = await (async () => {
      const started = process.hrtime.bigint();
      await fillTasks(server, account, TASKS);
      return [undefined, elapsedMs(started)] as const;
    })();
    process.stdout.write(`  ${TASKS} tasks (3 jobs each) written to the store in ${(fillMs / 1000).toFixed(1)} s\n`);
    const nodeCount = await registerWideWorkflow(account, 'wide', SAMPLES);
    const client = new Client({
      endpoint: server.url,
      accessKeyId: account.accessKeyId,
      accessKeySecret: account.accessKeySecret,
      account: account.name,
      retries: 0,
    });
    const layered = await loadLayered();

    browser = await launchBrowser();
    const newContext = async (init: string[]): Promise<{ context: BrowserContext; page: Page }> => {
      const context = await browser!.newContext({ viewport: VIEWPORT });
      contexts.push(context);
      for (const script of init) await context.addInitScript(script);
      const page = await context.newPage();
      logs.push(watchPage(page));
      return { context, page };
    };
    // The warm tab: signed in through the form; its session (sessionStorage) seeds each cold context's tab, as a
    // reload of a signed-in tab would find it.
    const { page } = await newContext([LONG_TASKS]);
    await page.goto(`${server.url}/console/`);
    await signIn(page, account);
    const stored = await page.evaluate(() => JSON.stringify(Object.fromEntries(Object.entries((globalThis as unknown as PageGlobals).sessionStorage))));
    const seed = `if (location.origin === ${JSON.stringify(server.url)} && sessionStorage.length === 0) for (const [k, v] of Object.entries(${stored})) sessionStorage.setItem(k, v);`;
    // Untimed first visits, so that "warm" is warm; and the graph's boxes for the Node layouts.
    await load(page, server.url, TASK_LIST);
    await load(page, server.url, GRAPH);
    await checkGraph(page, nodeCount);
    const input = await graphInput(page, account);
    if (input.nodes.length !== nodeCount) throw new Error(`read ${input.nodes.length} boxes, not ${nodeCount}`);
    await client.listTasks({ size: PAGE_SIZE });

    const r = {
      api: [] as number[],
      tasksCold: [] as Visit[],
      tasksWarm: [] as Visit[],
      tasksRoute: [] as Visit[],
      older: [] as number[],
      graphCold: [] as Visit[],
      graphWarm: [] as Visit[],
      graphRoute: [] as Visit[],
      dagre: [] as number[],
      layered: [] as number[],
    };
    let dagreSize = { width: 0, height: 0 };
    let layeredSize = { width: 0, height: 0 };
    for (let i = 0; i < ITERATIONS; i++) {
      // The peers first in each iteration, then the browser, alternating.
      const started = process.hrtime.bigint();
      const answer = await client.listTasks({ size: PAGE_SIZE });
      r.api.push(elapsedMs(started));
      if (answer.task_list.length !== PAGE_SIZE || answer.total !== TASKS) throw new Error(`ListTasks answered ${answer.task_list.length} of ${answer.total}`);

      const cold = await newContext([LONG_TASKS, seed]);
      r.tasksCold.push(await load(cold.page, server.url, TASK_LIST));
      r.older.push(await checkTaskList(cold.page));
      await cold.context.close();
      r.tasksWarm.push(await load(page, server.url, TASK_LIST));
      await checkTaskList(page);
      r.tasksRoute.push(await routeChange(page, server.url, '#/tools', 'Tools', TASK_LIST));
      await checkTaskList(page);

      [dagreSize, r.dagre[i]] = timedMs(() => dagreLayout(input));
      [layeredSize, r.layered[i]] = timedMs(() => layered(input.nodes, input.edges, { rankGap: 80, nodeGap: 16, linkGap: 6, margin: 14 }));

      const coldGraph = await newContext([LONG_TASKS, seed]);
      r.graphCold.push(await load(coldGraph.page, server.url, GRAPH));
      await checkGraph(coldGraph.page, nodeCount);
      await coldGraph.context.close();
      r.graphWarm.push(await load(page, server.url, GRAPH));
      await checkGraph(page, nodeCount);
      r.graphRoute.push(await routeChange(page, server.url, '#/workflows', 'Workflows', GRAPH));
      await checkGraph(page, nodeCount);
      process.stdout.write(
        `  iteration ${i + 1}: task list cold ${f(r.tasksCold[i]!.painted)} ms (API alone ${f(r.api[i]!)} ms), graph cold ${f(r.graphCold[i]!.painted)} ms (dagre alone ${f(r.dagre[i]!)} ms)\n`,
      );
    }
    process.stdout.write(`  load average at the end ${loadAverage()}\n`);
    const errors = logs.flatMap((log) => log.errors);
    if (errors.length > 0) throw new Error(`the console logged errors:\n${errors.join('\n')}`);

    const sizes = bundleSizes();
    const rawTotal = sizes.reduce((sum, s) => sum + s.raw, 0);
    const gzTotal = sizes.reduce((sum, s) => sum + s.gzipped, 0);
    const main = sizes.find((s) => s.name.startsWith('main-'));

    const pick = (visits: Visit[], key: keyof Visit) => visits.map((v) => v[key] as number);
    const row = (what: string, values: number[], target = '') => process.stdout.write(`| ${what} | ${stats(values)} (${list(values)}) | ${target} |\n`);
    const ratio = (a: number[], b: number[]) => `${(median(a) / median(b)).toFixed(1)}x`;
    process.stdout.write(`\n| measure | value (iterations) | target |\n|---|---|---|\n`);
    row(
      `task list, ${TASKS} tasks, cold load (new context): navigation → first ${PAGE_SIZE} rows painted, Older enabled`,
      pick(r.tasksCold, 'painted'),
      '< 1000 ms',
    );
    row('task list, warm load (same tab, cached script)', pick(r.tasksWarm, 'painted'), '< 1000 ms');
    row('task list, route change inside the console (#/tools → #/tasks)', pick(r.tasksRoute, 'painted'), '< 1000 ms');
    row('task list, the same as Playwright saw it from Node (cold load)', pick(r.tasksCold, 'wall'));
    row('task list, Older clicked right after the first paint → page 2 painted', r.older);
    row(`peer: signed ListTasks (size ${PAGE_SIZE}) from Node, the SDK`, r.api);
    process.stdout.write(
      `| ratio: console cold load / bare API request; warm load / API; route change / API | ${ratio(pick(r.tasksCold, 'painted'), r.api)}; ${ratio(pick(r.tasksWarm, 'painted'), r.api)}; ${ratio(pick(r.tasksRoute, 'painted'), r.api)} | |\n`,
    );
    row(`graph, ${nodeCount} nodes, cold load (new context): navigation → SVG with all nodes painted`, pick(r.graphCold, 'painted'), '< 1000 ms');
    row('graph, warm load (same tab)', pick(r.graphWarm, 'painted'), '< 1000 ms');
    row('graph, route change inside the console (#/workflows → the graph)', pick(r.graphRoute, 'painted'), '< 1000 ms');
    row(
      'graph, its data in hand → painted (layout and drawing), warm load',
      r.graphWarm.map((v) => v.painted - v.data),
    );
    row("graph, the console's layout alone in the browser (layoutGraph: label widths and layered.ts), warm load", pick(r.graphWarm, 'layoutMs'));
    row('peer: dagre (@dagrejs/dagre) layout of the same boxes and links, in Node', r.dagre);
    row("the console's layered.ts on the same input, in Node", r.layered);
    process.stdout.write(
      `| ratio: dagre in Node / the console's layout in the browser; dagre / layered.ts, both in Node; dagre / the console's data → painted | ${ratio(r.dagre, pick(r.graphWarm, 'layoutMs'))}; ${ratio(r.dagre, r.layered)}; ${ratio(
        r.dagre,
        r.graphWarm.map((v) => v.painted - v.data),
      )} | |\n`,
    );
    process.stdout.write(
      `| console JavaScript in dist/console/, ${sizes.length} files | ${kb(rawTotal)} raw, **${kb(gzTotal)} gzipped** (main ${kb(main?.raw ?? NaN)} raw, ${kb(main?.gzipped ?? NaN)} gzipped) | < 300 KB gzipped |\n`,
    );

    process.stdout.write(`\nWhere the time goes (medians, ms from the start; cold / warm / route change):\n`);
    for (const [name, sets] of [
      ['task list', [r.tasksCold, r.tasksWarm, r.tasksRoute]],
      ['graph', [r.graphCold, r.graphWarm, r.graphRoute]],
    ] as const) {
      const part = (key: keyof Visit) => sets.map((visits) => f(median(pick(visits, key).filter((v) => v !== null)))).join(' / ');
      process.stdout.write(
        `  ${name}: HTML received ${part('html')}; script requested ${part('scriptStart')}, received ${part('script')}; API request sent ${part('apiStart')}, answered ${part('apiEnd')}; data in hand ${part('data')}; painted ${part('painted')}; main-thread long tasks before the paint ${part('longTasks')}; JavaScript transferred ${sets.map((visits) => kb(median(pick(visits, 'jsTransferred')))).join(' / ')}\n`,
      );
    }
    process.stdout.write(
      `  graph extents: dagre ${dagreSize.width.toFixed(0)}x${dagreSize.height.toFixed(0)}, layered.ts ${layeredSize.width.toFixed(0)}x${layeredSize.height.toFixed(0)}\n`,
    );
    process.stdout.write(`  JavaScript files: ${sizes.map((s) => `${s.name} ${kb(s.raw)} (${kb(s.gzipped)} gz)`).join(', ')}\n`);
  } finally {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
