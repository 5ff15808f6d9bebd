/**
 * The import route (docs/cwl.md, "Import"), through a real server over HTTP: POST cwl/import/ makes tool and workflow
 * versions of a packed CWL document, which GeneDock's routes show (GetTool, ListTool, GetToolParameterTemplate,
 * GetToolDetails, GetWorkflow, the graph, the run template), the export route gives back as imported, and
 * ActivateWorkflow runs as a CWL run; what it cannot import is refused with the GeneDock error body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemoryDocumentSource, loadDocument, packDocument } from '../../src/domain/cwl/index.js';
import { parseExactJson } from '../../src/contract/exact-json.js';
import { rejectsWith } from '../helpers/assert-api.js';
import { readOutput, uploadFile, waitForCwlRun } from '../helpers/cwl-runs.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';
import { createWorkflow } from '../helpers/workflows.js';

let server: TestServer;
let alice: TestAccount;

before(async () => {
  server = await startTestServer();
  alice = await server.account();
});
after(async () => server.close());

const BASE = 'file:///w/';

/** Documents written as files, packed as `gdflow cwl run` and `gdflow cwl import` pack them. */
async function packed(files: Record<string, string>, main: string): Promise<{ document: Record<string, unknown>; process: string }> {
  const source = new InMemoryDocumentSource(Object.entries(files).map(([name, text]) => [BASE + name, text] as const));
  return packDocument(await loadDocument(BASE + main, source));
}

const REV = `cwlVersion: v1.2
class: CommandLineTool
label: reverse lines
doc: Reverse each line.
requirements:
  DockerRequirement: {dockerPull: "debian:stable-slim"}
  ResourceRequirement: {coresMin: 2, ramMin: 512}
inputs:
  input: {type: File, format: "http://edamontology.org/format_2330", inputBinding: {position: 1}}
  extra: {type: "File[]?"}
  count: {type: int, default: 3}
  mode: {type: {type: enum, symbols: [fast, slow]}, default: fast}
baseCommand: rev
stdout: output.txt
outputs:
  output: {type: stdout, format: "http://edamontology.org/format_2330"}
  lines: {type: int, outputBinding: {glob: output.txt, outputEval: "$(self.length)"}}
`;

const SORT = `cwlVersion: v1.2
class: CommandLineTool
inputs:
  reverse: {type: boolean, inputBinding: {position: 1, prefix: "-r"}}
  input: {type: File, inputBinding: {position: 2}}
baseCommand: sort
stdout: output.txt
outputs:
  output: stdout
`;

const WORKFLOW = `cwlVersion: v1.2
class: Workflow
doc: Reverse the lines, then sort them.
inputs:
  input: {type: File, format: "http://edamontology.org/format_2330"}
  reverse_sort: {type: boolean, default: true}
outputs:
  output: {type: File, outputSource: sorted/output}
steps:
  rev:
    run: tools/rev.cwl
    in: {input: input}
    out: [output]
  sorted:
    run: tools/sort.cwl
    in: {input: rev/output, reverse: reverse_sort}
    out: [output]
`;

const FILES = { 'revsort.cwl': WORKFLOW, 'tools/rev.cwl': REV, 'tools/sort.cwl': SORT };

const post = (account: TestAccount, body: unknown) => account.api.json<any>('POST', projectPath(account.name, 'cwl/import/'), { json: body });
const get = (account: TestAccount, path: string, query: Record<string, string> = {}) =>
  account.api.json<any>('GET', projectPath(account.name, path), { query });

describe('importing CWL: POST cwl/import/', () => {
  it('makes a workflow version of the process and tool versions of the tools it runs, each keeping its document', async () => {
    const { document, process } = await packed(FILES, 'revsort.cwl');
    const answer = await post(alice, { document, process, name: 'revsort' });
    assert.deepEqual(answer.imported, [
      { process: '#rev.cwl', kind: 'tool', name: 'rev', version: 1, created: true },
      { process: '#sort.cwl', kind: 'tool', name: 'sort', version: 1, created: true },
      { process: '#main', kind: 'workflow', name: 'revsort', version: 1, created: true },
    ]);
    // The same document again: nothing new. A changed tool: a new version of it, and of the workflow that runs it.
    assert.ok((await post(alice, { document, process, name: 'revsort' })).imported.every((i: { created: boolean }) => !i.created));
    const changed = await packed({ ...FILES, 'tools/rev.cwl': REV.replace('Reverse each line.', 'Reverse each line, again.') }, 'revsort.cwl');
    const again = await post(alice, { ...changed, name: 'revsort' });
    assert.deepEqual(
      again.imported.map((i: any) => [i.name, i.version, i.created]),
      [
        ['rev', 2, true],
        ['sort', 1, false],
        ['revsort', 2, true],
      ],
    );

    // Export gives back the document as imported: the workflow's whole, a tool's as a document of its own.
    assert.deepEqual(await get(alice, 'workflows/revsort/cwl/', { workflow_version: '1' }), document);
    const tool = await get(alice, 'tools/sort/cwl/');
    assert.deepEqual([tool.class, tool.id, tool.baseCommand], ['CommandLineTool', '#main', 'sort']);
  });

  it('shows GeneDock a view of the tools: files as ports, other inputs as parameters, the image and resources', async () => {
    const { tools } = await get(alice, 'tools/rev/', { tool_version: '1' });
    const configs = tools[0].configs;
    assert.equal(configs.category, 'cwl');
    assert.equal(configs.alias, 'reverse lines');
    assert.deepEqual(configs.cwl, { class: 'CommandLineTool', cwlVersion: 'v1.2' });
    assert.deepEqual(configs.inputs.input, { name: 'input', type: 'file', hint: '', minitems: 1, maxitems: 1, required: true, formats: ['txt'] });
    assert.deepEqual(configs.inputs.extra, { name: 'extra', type: 'file', hint: '', minitems: 0, maxitems: 10_000, required: false, formats: [] });
    assert.deepEqual(configs.outputs.output, { name: 'output', type: 'file', hint: '', minitems: 1, maxitems: 1, required: true, formats: 'txt' });
    assert.equal(configs.outputs.lines, undefined, 'an output that is not a file has no GeneDock place');
    assert.deepEqual(configs.parameters.count, { type: 'integer', hint: '', default: 3, required: false, variable: true });
    assert.deepEqual(configs.parameters.mode, { type: 'string', hint: 'CWL type enum [fast, slow]', default: '"fast"', required: false, variable: true });
    assert.deepEqual(configs.requirements, {
      container: { image: 'debian:stable-slim', type: 'docker' },
      resources: { cpu: 2, mem: '512m', disk: '1024m', network: false },
    });
    const list = await get(alice, 'tools/');
    assert.ok(list.items.flat().some((t: any) => t.tool_name === 'rev' && t.category === 'cwl' && t.status === 'checked'));
    const template = await get(alice, 'toolparameters/rev/');
    assert.deepEqual(Object.keys(template.parameter[0].parameters).sort(), ['count', 'mode']);
    const [details] = await get(alice, 'tooldetails/rev/');
    assert.deepEqual(details.details.inputs.input, { minitems: 1, maxitems: 1, formats: ['txt'] });
  });

  it('shows the workflow as load, step and store nodes, with a graph and a run template', async () => {
    const { workflows } = await get(alice, 'workflows/revsort/', { workflow_version: '1' });
    const nodes = workflows[0].configs.nodelist;
    assert.deepEqual(
      nodes.map((n: any) => [n.node_id, n.app_id]),
      [
        ['input', 'loaddata'],
        ['rev', `/${alice.name}/rev/1`],
        ['sorted', `/${alice.name}/sort/1`],
        ['output', 'storedata'],
      ],
    );
    assert.deepEqual(nodes[2].inputs, { input: [{ enid: 'rev/output' }], reverse: [{ enid: 'reverse_sort' }] });
    const graph = await get(alice, 'workflows/revsort/graph/', { workflow_version: '1' });
    assert.deepEqual(
      graph.nodes.map((n: any) => [n.node_id, n.kind, n.depth]),
      [
        ['input', 'load', 0],
        ['rev', 'tool', 1],
        ['sorted', 'tool', 2],
        ['output', 'store', 3],
      ],
    );
    assert.deepEqual(
      graph.edges.map((e: any) => `${e.from}.${e.from_port}->${e.to}.${e.to_port}`),
      ['input.data->rev.input', 'rev.output->sorted.input', 'sorted.output->output.data'],
    );
    const { parameter } = await get(alice, 'executable-workflows/revsort/', { workflow_version: '1' });
    assert.deepEqual(Object.keys(parameter.Inputs), ['input']);
    assert.deepEqual(parameter.Inputs.input.formats, ['txt']);
    assert.deepEqual(parameter.Parameters.inputs.parameters.reverse_sort, { variable: true, required: false, type: 'flag', value: true, hint: '' });
    assert.deepEqual(Object.keys(parameter.Outputs), ['output']);
  });

  it('runs an imported workflow on ActivateWorkflow: its run template as the CWL job', async () => {
    await uploadFile(alice, '/samples/lines.txt', 'abc\nxyz\n');
    const { parameter } = await get(alice, 'executable-workflows/revsort/', { workflow_version: '1' });
    parameter.Inputs.input.data[0].name = '/samples/lines.txt';
    parameter.Parameters.inputs.parameters.reverse_sort.value = false;
    const started = await alice.api.json<any>('POST', projectPath(alice.name, 'tasks/'), {
      json: { workflow_name: 'revsort', workflow_version: 1, parameters: parameter },
    });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(await readOutput(alice, run.outputs!.output), 'cba\nzyx\n');
    const task = await get(alice, `tasks/${started.task_id}/`);
    assert.deepEqual([task.workflow_name, task.workflow_version], ['revsort', 1]);
    // A data item of another account is not the caller's to read.
    parameter.Inputs.input.data[0].name = 'public:/samples/lines.txt';
    await rejectsWith(
      alice.api.json('POST', projectPath(alice.name, 'tasks/'), { json: { workflow_name: 'revsort', workflow_version: 1, parameters: parameter } }),
      400,
      'InvalidParameter',
      "is data of account 'public'",
    );
  });

  it('imports a document written without an id (not packed) as its #main, which runs on ActivateWorkflow', async () => {
    // As a user writes it, without `id`: its process becomes `#main` (as packing names it), which the version keeps.
    const document = {
      cwlVersion: 'v1.2',
      class: 'Workflow',
      inputs: { word: 'string' },
      outputs: { said: { type: 'File', outputSource: 'say/out' } },
      steps: {
        say: {
          run: {
            class: 'CommandLineTool',
            baseCommand: 'echo',
            inputs: { word: { type: 'string', inputBinding: {} } },
            stdout: 'said.txt',
            outputs: { out: 'stdout' },
          },
          in: { word: 'word' },
          out: ['out'],
        },
      },
    };
    const { imported } = await post(alice, { document, name: 'say_noid' });
    assert.deepEqual(imported, [{ process: '#main', kind: 'workflow', name: 'say_noid', version: 1, created: true }]);
    assert.equal((await post(alice, { document, name: 'say_noid' })).imported[0].created, false, 'the same document again is the same version');
    const { parameter } = await get(alice, 'executable-workflows/say_noid/', { workflow_version: '1' });
    parameter.Parameters.inputs.parameters.word.value = 'hello';
    const started = await alice.api.json<any>('POST', projectPath(alice.name, 'tasks/'), {
      json: { workflow_name: 'say_noid', workflow_version: 1, parameters: parameter },
    });
    const run = await waitForCwlRun(alice, started.task_id);
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    assert.equal(await readOutput(alice, run.outputs!.said), 'hello\n');
  });

  it('imports a tool whose record default holds an integer beyond 2^53, shown with all its digits', async () => {
    // The conformance suite's paramref_arguments_inputs.cwl: its import answered 500 (JSON.stringify of a bigint).
    const document = parseExactJson(
      '{"cwlVersion":"v1.2","id":"#main","class":"CommandLineTool","baseCommand":"true","outputs":[],' +
        '"inputs":[{"id":"#r","type":{"type":"record","fields":[{"name":"#r/n","type":"long"}]},"default":{"n":4200000000000000000000000000000000000000000}}]}',
    );
    const { imported } = await post(alice, { document, name: 'big_default' });
    assert.equal(imported[0].name, 'big_default');
    // The record's default is in the parameter's view as JSON text, its digits kept.
    const { parameter } = await get(alice, 'toolparameters/big_default/');
    assert.match(JSON.stringify(parameter), /4200000000000000000000000000000000000000000/);
  });

  it('keeps imported versions as they are: no PutTool or PutWorkflow, no node of a GeneDock workflow', async () => {
    await rejectsWith(
      alice.api.send('PUT', projectPath(alice.name, 'tools/rev/'), { json: { tool_version: 1, configs: {} } }),
      400,
      'InvalidParameter',
      'was imported from CWL',
    );
    await rejectsWith(
      alice.api.send('PUT', projectPath(alice.name, 'workflows/revsort/'), { json: { workflow_version: 1, configs: { nodelist: [] } } }),
      400,
      'InvalidParameter',
      'was imported from CWL',
    );
    const nodelist = [
      { node_id: 'load', app_id: 'loaddata', name: 'loaddata', outputs: { data: { enid: 'in' } } },
      { node_id: 'rev', app_id: `/${alice.name}/rev/1`, inputs: { input: [{ enid: 'in' }] }, outputs: { output: [{ enid: 'out' }] } },
      { node_id: 'save', app_id: 'storedata', name: 'storedata', inputs: { data: { enid: 'out' } } },
    ];
    await rejectsWith(createWorkflow(alice, 'native_with_cwl', { nodelist }), 400, 'InvalidParameter', 'imported from CWL: it runs in CWL workflows');
  });

  it('refuses what it cannot import, naming the field, and features gdflow does not support', async () => {
    const { document } = await packed(FILES, 'revsort.cwl');
    await rejectsWith(post(alice, { document: 'nope' }), 400, 'InvalidParameter', 'document must be');
    await rejectsWith(post(alice, { document, process: 'a b' }), 400, 'InvalidParameter', "process must name a process of the document's $graph");
    await rejectsWith(post(alice, { document, process: '#main', name: '1bad' }), 400, 'InvalidParameter', "tool_name '1bad' must start with a letter");
    await rejectsWith(post(alice, { document, process: '#nothing' }), 400, 'InvalidParameter', 'has no process #nothing');
    await rejectsWith(
      post(alice, { document: { cwlVersion: 'v1.2', class: 'CommandLineTool', inputs: [], outputs: [], baseComand: 'x' } }),
      400,
      'InvalidParameter',
      "invalid field 'baseComand'",
    );
    const needs = { cwlVersion: 'v1.2', class: 'CommandLineTool', requirements: [{ class: 'MPIRequirement', processes: 2 }], inputs: [], outputs: [] };
    await rejectsWith(post(alice, { document: needs }), 400, 'UnsupportedRequirement', "unknown requirement class 'MPIRequirement'");
    const bob = await server.account();
    await rejectsWith(bob.api.json('POST', projectPath(alice.name, 'cwl/import/'), { json: { document } }), 403, 'AccessDenied');
    // Nothing was written by the refusals.
    assert.deepEqual(
      (await get(alice, 'tools/')).items
        .flat()
        .map((t: any) => `${t.tool_name}:${t.tool_version}`)
        .sort(),
      ['big_default:1', 'rev:1', 'rev:2', 'sort:1'],
    );
  });
});
