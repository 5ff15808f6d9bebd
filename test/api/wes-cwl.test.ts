/**
 * What the CWL conformance tests found wrong in WES's CWL runs when driven through scripts/wes-runner (docs/ga4gh.md,
 * "CWL tests through WES"), against a real server over HTTP: an attached format ontology ($schemas) is the one format
 * checks read, and numbers beyond doubles' integers in workflow_params or in the document are kept, not a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { basic, ga4ghRequest, startGa4ghServer, type Ga4ghAnswer } from '../helpers/ga4gh.js';
import type { TestAccount, TestServer } from '../helpers/server.js';

const WES = '/ga4gh/wes/v1';

let server: TestServer;
let alice: TestAccount;

const call = (method: string, path: string, body?: FormData): Promise<Ga4ghAnswer> =>
  ga4ghRequest(`${server.url}${WES}${path}`, method, basic(alice), body === undefined ? undefined : { raw: body });

function form(fields: Record<string, string>, attachments: Record<string, string>): FormData {
  const out = new FormData();
  for (const [key, value] of Object.entries(fields)) out.append(key, value);
  for (const [name, content] of Object.entries(attachments)) out.append('workflow_attachment', new Blob([content]), name);
  return out;
}

async function finished(id: string): Promise<any> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const status = await call('GET', `/runs/${id}/status`);
    assert.equal(status.status, 200, JSON.stringify(status.json));
    if (['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR', 'CANCELED'].includes(status.json.state)) return (await call('GET', `/runs/${id}`)).json;
    if (Date.now() > deadline) assert.fail(`run ${id} is still ${status.json.state}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function post(fields: Record<string, string>, attachments: Record<string, string>): Promise<Ga4ghAnswer> {
  return call('POST', '/runs', form({ workflow_type: 'CWL', workflow_type_version: 'v1.2', ...fields }, attachments));
}

/** A small ontology in Turtle: format B is a subclass of format A. */
const ONTOLOGY = `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<http://example.org/formats#A> a owl:Class .
<http://example.org/formats#B> a owl:Class ; rdfs:subClassOf <http://example.org/formats#A> .
`;

const FORMAT_TOOL = `cwlVersion: v1.2
class: CommandLineTool
$namespaces: {fmt: "http://example.org/formats#"}
$schemas: [ontology/formats.ttl]
baseCommand: [cat]
inputs:
  input: {type: File, format: fmt:A, inputBinding: {position: 1}}
stdout: out.txt
outputs:
  out: {type: stdout}
`;

const BIG_TOOL = `cwlVersion: v1.2
class: CommandLineTool
requirements: {InlineJavascriptRequirement: {}}
inputs:
  a_double: {type: double, default: 1000000000000000000000000000000000000000000}
  a_long: {type: long}
arguments: ['{"result": $(inputs)}']
baseCommand: [echo]
stdout: cwl.output.json
outputs:
  result: Any
`;

before(async () => ({ server, alice } = await startGa4ghServer()));
after(async () => server?.close());

describe('WES: CWL documents the conformance tests run', () => {
  it("checks a File's format against the ontology attached as the document's $schemas (a subclass is accepted)", async () => {
    const attachments = { 'tools/format.cwl': FORMAT_TOOL, 'tools/ontology/formats.ttl': ONTOLOGY, 'data/in.txt': 'hello\n' };
    const params = JSON.stringify({ input: { class: 'File', location: 'data/in.txt', format: 'http://example.org/formats#B' } });
    const answer = await post({ workflow_url: 'tools/format.cwl', workflow_params: params }, attachments);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    const log = await finished(answer.json.run_id);
    assert.equal(log.state, 'COMPLETE', JSON.stringify(log.run_log));
    assert.equal(log.outputs.out.size, 6);
  });

  it("takes numbers beyond a double's integers in workflow_params and in defaults, and keeps them", async () => {
    const params = '{"a_long": 9007199254740993}';
    const answer = await post({ workflow_url: 'big.cwl', workflow_params: params }, { 'big.cwl': BIG_TOOL });
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    const log = await finished(answer.json.run_id);
    assert.equal(log.state, 'COMPLETE', JSON.stringify(log.run_log));
    assert.equal(log.outputs.result.a_double, 1e42);
    // The long as the client sent it, digit for digit (JSON.parse would read 9007199254740992).
    const text = await (await fetch(`${server.url}${WES}/runs/${answer.json.run_id as string}`, { headers: { authorization: basic(alice) } })).text();
    assert.match(text, /"a_long": ?9007199254740993\b/);
  });
});
