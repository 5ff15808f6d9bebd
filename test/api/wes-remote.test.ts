/**
 * WES runs whose workflow_url is an http(s) URL (docs/ga4gh.md, "The run request"), against a real server that may
 * fetch from 127.0.0.1 only (--fetch-hosts) and a local http server holding a CWL workflow and the tool it runs by a
 * relative `run:` (resolved against the workflow's URL). A host not allowed, directly or named inside the workflow,
 * and a document the host does not have are 400s naming workflow_url; nothing is started.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { basic, ga4ghRequest } from '../helpers/ga4gh.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const WES = '/ga4gh/wes/v1';

let server: TestServer;
let alice: TestAccount;
let web: Server;
let port: number;
const requested: string[] = [];

const TOOL = `cwlVersion: v1.2
class: CommandLineTool
baseCommand: [cat]
inputs:
  file: {type: File, inputBinding: {position: 1}}
stdout: copied.txt
outputs:
  copied: {type: stdout}
`;

const workflow = (run: string) => `cwlVersion: v1.2
class: Workflow
inputs:
  reads: File
outputs:
  result: {type: File, outputSource: copy/copied}
steps:
  copy:
    run: ${run}
    in: {file: reads}
    out: [copied]
`;

function form(fields: Record<string, unknown>, attachments: Record<string, string> = {}): FormData {
  const out = new FormData();
  for (const [key, value] of Object.entries(fields)) out.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  for (const [name, content] of Object.entries(attachments)) out.append('workflow_attachment', new Blob([content]), name);
  return out;
}

const post = (fields: Record<string, unknown>, attachments: Record<string, string> = {}) =>
  ga4ghRequest(`${server.url}${WES}/runs`, 'POST', basic(alice), { raw: form(fields, attachments) });

before(async () => {
  web = createServer((req, res) => {
    requested.push(req.url ?? '');
    const documents: Record<string, string> = {
      '/cwl/wf/main.cwl': workflow('../tools/cat.cwl'),
      '/cwl/tools/cat.cwl': TOOL,
      '/cwl/wf/elsewhere.cwl': workflow(`http://localhost:${port}/cwl/tools/cat.cwl`),
    };
    const text = documents[req.url ?? ''];
    if (text === undefined) res.writeHead(404).end('no such document');
    else res.end(text);
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  port = (web.address() as AddressInfo).port;
  server = await startTestServer({ fetchHosts: '127.0.0.1' });
  alice = await server.account();
});
after(async () => {
  web?.closeAllConnections();
  web?.close();
  await server?.close();
});

describe('WES: workflow_url over http(s)', () => {
  it('fetches the workflow and the tool its relative run: names from the URL, and runs it to COMPLETE with an attached input', async () => {
    const answer = await post(
      {
        workflow_type: 'CWL',
        workflow_url: `http://127.0.0.1:${port}/cwl/wf/main.cwl`,
        workflow_params: { reads: { class: 'File', location: 'data/hello.txt' } },
      },
      { 'data/hello.txt': 'hello over http\n' },
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.ok(requested.includes('/cwl/tools/cat.cwl'), `the tool was fetched relative to the workflow: ${requested.join(', ')}`);
    const id = answer.json.run_id as string;
    const deadline = Date.now() + 90_000;
    let log: any;
    for (;;) {
      log = (await ga4ghRequest(`${server.url}${WES}/runs/${id}`, 'GET', basic(alice))).json;
      if (['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR'].includes(log.state) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(log.state, 'COMPLETE', JSON.stringify(log));
    assert.equal(log.request.workflow_url, `http://127.0.0.1:${port}/cwl/wf/main.cwl`);
    const fetched = await fetch(log.outputs.result.location, { headers: { authorization: basic(alice) } });
    assert.equal(await fetched.text(), 'hello over http\n');
  });

  it('service-info lists http(s) among the protocols, with the hosts allowed', async () => {
    const info = (await ga4ghRequest(`${server.url}${WES}/service-info`, 'GET', basic(alice))).json;
    assert.ok(info.supported_filesystem_protocols.includes('http(s) (a workflow_url on 127.0.0.1)'), JSON.stringify(info.supported_filesystem_protocols));
  });

  it('a host not allowed (the workflow_url or a document it names) and a document the host does not have are 400s naming workflow_url', async () => {
    const before = requested.length;
    const direct = await post({ workflow_type: 'CWL', workflow_url: `http://localhost:${port}/cwl/wf/main.cwl` });
    assert.equal(direct.status, 400, JSON.stringify(direct.json));
    assert.match(direct.json.msg, /workflow_url .*does not fetch from that host \(--fetch-hosts: 127\.0\.0\.1\)/);
    assert.equal(requested.length, before, 'nothing was fetched');
    const inside = await post({ workflow_type: 'CWL', workflow_url: `http://127.0.0.1:${port}/cwl/wf/elsewhere.cwl` });
    assert.equal(inside.status, 400, JSON.stringify(inside.json));
    assert.match(inside.json.msg, /workflow_url .*elsewhere\.cwl.*localhost.*does not fetch from that host/);
    const missing = await post({ workflow_type: 'CWL', workflow_url: `http://127.0.0.1:${port}/cwl/nothing.cwl` });
    assert.equal(missing.status, 400, JSON.stringify(missing.json));
    assert.match(missing.json.msg, /workflow_url .*nothing\.cwl.*answered 404/);
    const runs = await ga4ghRequest(`${server.url}${WES}/runs`, 'GET', basic(alice));
    assert.equal(runs.json.runs.length, 1, 'only the run of the first test was started');
  });
});
