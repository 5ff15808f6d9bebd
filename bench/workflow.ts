import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { ToolAsRead } from '../src/client/types.js';
import { createAccount, machine, median, startGdflow } from './lib/processes.js';

/**
 * bench:workflow — PutWorkflow of a generated 1,000-node workflow and GetExecutableWorkflow of it,
 * against gdflow, with a bare node:http server that receives the same body and answers 200 as
 * the named peer (the cost of moving and parsing the bytes without any validation).
 */
const NODES = Number(process.env.BENCH_NODES ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function generate(toolId: string) {
  // Chains of tools fed by load nodes and ending in store nodes: load → tool × 8 → store.
  const nodelist: unknown[] = [];
  let chain = 0;
  while (nodelist.length < NODES) {
    const c = chain++;
    nodelist.push({ node_id: `load_${c}`, app_id: 'loaddata', name: 'loaddata', outputs: { data: { enid: `in_${c}` } } });
    let previous = `in_${c}`;
    for (let s = 0; s < 8 && nodelist.length < NODES - 1; s++) {
      const out = `l_${c}_${s}`;
      nodelist.push({
        node_id: `step_${c}_${s}`,
        app_id: toolId,
        inputs: { src: [{ enid: previous }] },
        outputs: { dst: [{ enid: out }] },
        parameters: { level: { value: s, variable: true } },
      });
      previous = out;
    }
    nodelist.push({ node_id: `store_${c}`, app_id: 'storedata', name: 'storedata', inputs: { data: { enid: previous } } });
  }
  return { nodelist };
}

async function main() {
  const gdflow = await startGdflow();
  const { transport } = createAccount(gdflow.dataDir, gdflow.url, 'wfbench');
  const project = '/accounts/wfbench/projects/default';
  await transport.send('POST', `${project}/tools/`, { json: { tool_name: 'step' } });
  await transport.send('PUT', `${project}/tools/step/`, {
    json: {
      tool_version: 1,
      configs: {
        name: 'step',
        cmd_template: 'gzip -c -{{ parameters.level }} {{ inputs.src[0].path }} > {{ outputs.dst[0].path }}',
        inputs: { src: { type: 'file', formats: ['txt', 'gz'], required: true } },
        outputs: { dst: { type: 'file', formats: 'gz', required: true } },
        parameters: { level: { type: 'integer', default: 6, minvalue: 0, maxvalue: 9 } },
        requirements: { container: { image: 'debian:bookworm' }, resources: { cpu: 1, mem: '128m' } },
      },
    },
  });
  const tool = (await transport.json<{ tools: ToolAsRead[] }>('GET', `${project}/tools/step/`)).tools[0]!.configs._id;
  const configs = generate(tool);
  const body = Buffer.from(JSON.stringify({ workflow_version: 1, configs }));

  const bare: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;

  const put: number[] = [];
  const get: number[] = [];
  const peer: number[] = [];
  let size = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let t = performance.now();
    await fetch(`${bareUrl}/`, { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    peer.push(performance.now() - t);
    await transport.send('POST', `${project}/workflows/`, { json: { workflow_name: 'big' } });
    t = performance.now();
    await transport.send('PUT', `${project}/workflows/big/`, { json: { workflow_version: round + 1, configs } });
    put.push(performance.now() - t);
    t = performance.now();
    const response = await transport.send('GET', `${project}/executable-workflows/big/`, { query: { workflow_version: round + 1 } });
    size = (await response.arrayBuffer()).byteLength;
    get.push(performance.now() - t);
  }
  bare.close();
  await gdflow.stop();
  rmSync(gdflow.dataDir, { recursive: true, force: true });
  const m = (xs: number[]) => median(xs).toFixed(1);
  process.stdout.write(
    `\nbench:workflow on ${machine()}; ${configs.nodelist.length} nodes, body ${(body.length / 1024).toFixed(0)} KiB, template ${(size / 1024).toFixed(0)} KiB, ${ROUNDS} rounds, medians\n`,
  );
  process.stdout.write('| step | gdflow ms | bare node:http (receive + JSON.parse) ms | ratio |\n|---|---|---|---|\n');
  process.stdout.write(
    `| PutWorkflow (validate ${configs.nodelist.length} nodes, pin tools, store) | ${m(put)} | ${m(peer)} | ${(median(put) / median(peer)).toFixed(1)}x |\n`,
  );
  process.stdout.write(`| GetExecutableWorkflow (build the run template) | ${m(get)} | - | - |\n`);
  process.stdout.write(
    `all PutWorkflow ms: ${put.map((x) => x.toFixed(1)).join(', ')}; all GetExecutableWorkflow ms: ${get.map((x) => x.toFixed(1)).join(', ')}\n`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
