import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { fixturePath } from '../helpers/paths.js';
import { cliFixture, copyToolYaml, copyWorkflowYaml, writeFile, type CliFixture } from './support.js';

let f: CliFixture;

before(async () => {
  f = await cliFixture();
});
after(async () => f.close());

describe('gdflow tool', () => {
  it('lists an empty project as empty (ListTool answers 404 there)', async () => {
    const text = await f.run(['tool', 'ls']);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /no tools in this project/);
    const json = await f.run(['tool', 'ls', '--json']);
    assert.deepEqual(json.json(), []);
  });

  it('creates tools from app: documents, lists, reads, updates and deletes them', async () => {
    const file = writeFile(f.dir, 'copy.yml', copyToolYaml('copyreads'));
    const created = await f.run(['tool', 'create', '-f', file]);
    assert.equal(created.status, 0, created.stderr);
    assert.equal(created.stdout.trim(), 'tool copyreads version 1 created');
    // The GeneDock example document, as published.
    const hello = await f.run(['tool', 'create', '-f', fixturePath('hello-tool.yml'), '--json']);
    assert.equal(hello.status, 0, hello.stderr);
    assert.deepEqual(hello.json(), { tool_name: 'Hello', tool_version: 1 });

    const list = await f.run(['tool', 'ls', '--json']);
    assert.deepEqual(
      list
        .json()
        .map((t: any) => [t.tool_name, t.tool_version, t.status])
        .sort(),
      [
        ['Hello', 1, 'checked'],
        ['copyreads', 1, 'checked'],
      ],
    );
    const table = await f.run(['tool', 'ls']);
    assert.match(table.stdout, /^NAME\s+VERSION\s+STATUS\s+CATEGORY\s+MODIFIED\s+DESCRIPTION$/m);
    assert.match(table.stdout, /^copyreads\s+1\s+checked\s+test\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+copies its input$/m);

    // get prints an editable app: document; feeding it back adds version 2.
    const got = await f.run(['tool', 'get', 'copyreads']);
    assert.equal(got.status, 0, got.stderr);
    const doc = parse(got.stdout);
    assert.equal(doc.app.name, 'copyreads');
    assert.equal(doc.app._id, undefined, 'server bookkeeping is left out');
    doc.app.description = 'copies its input, version two';
    const edited = writeFile(f.dir, 'copy-v2.yml', JSON.stringify(doc));
    const updated = await f.run(['tool', 'update', '-f', edited]);
    assert.equal(updated.status, 0, updated.stderr);
    assert.equal(updated.stdout.trim(), 'tool copyreads version 2 updated');
    const v2 = await f.run(['tool', 'get', 'copyreads', '--json']);
    assert.equal(v2.json().configs.version, 2);
    assert.equal(v2.json().description, 'copies its input, version two');
    const v1 = await f.run(['tool', 'get', 'copyreads', '--version', '1', '--json']);
    assert.equal(v1.json().description, 'copies its input');

    // --version N replaces that version in place.
    const replaced = await f.run(['tool', 'update', '-f', file, '--version', '2', '--description', 'replaced']);
    assert.equal(replaced.status, 0, replaced.stderr);
    assert.equal((await f.run(['tool', 'get', 'copyreads', '--version', '2', '--json'])).json().description, 'replaced');

    const latest = await f.run(['tool', 'ls', '--latest', '--json']);
    assert.deepEqual(latest.json().find((t: any) => t.tool_name === 'copyreads').tool_version, 2);

    const deleted = await f.run(['tool', 'delete', 'copyreads', '--version', '2']);
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.deepEqual(
      (await f.run(['tool', 'ls', '--json']))
        .json()
        .filter((t: any) => t.tool_name === 'copyreads')
        .map((t: any) => t.tool_version),
      [1],
    );
    const all = await f.run(['tool', 'delete', 'Hello', '--all']);
    assert.equal(all.status, 0, all.stderr);
    const gone = await f.run(['tool', 'get', 'Hello']);
    assert.equal(gone.status, 1);
    const answer = '\\[404 ToolNotExists, request [0-9a-f]{24}\\]';
    assert.match(gone.stderr, new RegExp(`tool 'Hello' not found in ${f.account.name}/default \\(there are: copyreads\\) ${answer}`));
  });

  it('refuses a bad document before any request (exit 2), and a refused definition leaves no empty version (exit 1)', async () => {
    const notYaml = writeFile(f.dir, 'broken.yml', 'app: [unclosed');
    const bad = await f.run(['tool', 'create', '-f', notYaml]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /not valid YAML/);
    // The parser's pointer to the spot is kept: the offending line, and a caret under it.
    const misindented = await f.run(['tool', 'create', '-f', writeFile(f.dir, 'misindented.yml', 'app:\n  name: x\n  inputs: [a, b\n  outputs: {}\n')]);
    assert.equal(misindented.status, 2);
    assert.match(misindented.stderr, /at line 4, column 3:\n\n {2}inputs: \[a, b\n {2}outputs: \{\}\n {2}\^/);
    const noName = await f.run(['tool', 'create', '-f', writeFile(f.dir, 'noname.yml', 'app: {cmd_template: echo}')]);
    assert.equal(noName.status, 2);
    assert.match(noName.stderr, /has no 'name'/);
    assert.equal((await f.run(['tool', 'create', '-f', join(f.dir, 'missing.yml')])).status, 2);

    const invalid = writeFile(f.dir, 'invalid.yml', copyToolYaml('badtool').replace("image: 'debian:bookworm'", "image: 'Not An Image!'"));
    const refused = await f.run(['tool', 'create', '-f', invalid]);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /400 InvalidParameter: Put tool definition failed, since .*image/);
    const tools = (await f.run(['tool', 'ls', '--json'])).json();
    assert.ok(!tools.some((t: any) => t.tool_name === 'badtool'), 'the version made by CreateTool was removed again');
  });
});

describe('gdflow workflow', () => {
  before(async () => {
    const tool = await f.run(['tool', 'create', '-f', writeFile(f.dir, 'wf-tool.yml', copyToolYaml('wftool'))]);
    assert.equal(tool.status, 0, tool.stderr);
  });

  it('creates from a workflow: document; ls, get, update, graph, delete', async () => {
    assert.match((await f.run(['workflow', 'ls'])).stdout, /no workflows in this project/);
    const file = writeFile(f.dir, 'wf.yml', copyWorkflowYaml(f.account.name, 'copywf', 'wftool'));
    const created = await f.run(['workflow', 'create', '-f', file]);
    assert.equal(created.status, 0, created.stderr);
    assert.equal(created.stdout.trim(), 'workflow copywf version 1 created');

    const list = await f.run(['workflow', 'ls', '--json']);
    assert.deepEqual(
      list.json().map((w: any) => [w.workflow_name, w.workflow_version, w.status]),
      [['copywf', 1, 'checked']],
    );
    assert.match((await f.run(['workflow', 'ls', '--executable'])).stdout, /^copywf\s+1\s+checked/m);

    const got = await f.run(['workflow', 'get', 'copywf']);
    const doc = parse(got.stdout);
    assert.equal(doc.workflow.name, 'copywf');
    assert.deepEqual(
      doc.workflow.nodelist.map((n: any) => n.node_id),
      ['load_reads', 'copy', 'save'],
    );
    const again = await f.run(['workflow', 'update', '-f', writeFile(f.dir, 'wf2.yml', got.stdout), '--description', 'second']);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout.trim(), 'workflow copywf version 2 updated');
    assert.equal((await f.run(['workflow', 'get', 'copywf', '--json'])).json().description, 'second');

    const graph = await f.run(['workflow', 'graph', 'copywf', '--version', '1']);
    assert.equal(graph.status, 0, graph.stderr);
    assert.match(graph.stdout, /^workflow copywf version 1: 3 nodes, 2 links$/m);
    assert.match(graph.stdout, /^\s+0\s+load_reads\s+load\s+loaddata/m);
    assert.match(graph.stdout, /^\s+1\s+copy\s+tool\s+wftool v1\s+reads\s+out\s+copy$/m);
    assert.match(graph.stdout, /^\s+2\s+save\s+store\s+storedata/m);
    assert.match(graph.stdout, /load_reads\.data --> copy\.reads\s+\(reads\)/);
    assert.match(graph.stdout, /copy\.out\s+--> save\.data \[fastq\]\s+\(copied\)/);
    const graphJson = await f.run(['workflow', 'graph', 'copywf', '--json']);
    assert.equal(graphJson.json().workflow_version, 2);
    assert.equal(graphJson.json().edges.length, 2);

    const deleted = await f.run(['workflow', 'delete', 'copywf', '--version', '2']);
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.deepEqual(
      (await f.run(['workflow', 'ls', '--json'])).json().map((w: any) => w.workflow_version),
      [1],
    );
    assert.equal((await f.run(['workflow', 'delete', 'copywf'])).status, 2, 'delete needs --version or --all');
  });

  it('prints the run template (getparam) and saves defaults (setparam)', async () => {
    const text = await f.run(['workflow', 'getparam', 'copywf']);
    assert.equal(text.status, 0, text.stderr);
    const template = parse(text.stdout);
    assert.deepEqual(Object.keys(template.Inputs), ['load_reads']);
    assert.deepEqual(Object.keys(template.Outputs), ['save']);
    assert.equal(template.Parameters.copy.parameters.threads.value, 2);
    assert.deepEqual((await f.run(['workflow', 'getparam', 'copywf', '--json'])).json(), template);

    template.Parameters.copy.parameters.threads.value = 7;
    template.Inputs.load_reads.data[0].name = '/reads/default.fastq';
    const params = writeFile(f.dir, 'defaults.yml', JSON.stringify(template));
    const set = await f.run(['workflow', 'setparam', 'copywf', '-p', params, '--version', '1']);
    assert.equal(set.status, 0, set.stderr);
    assert.equal(set.stdout.trim(), 'run parameters of workflow copywf version 1 saved');
    const out = join(f.dir, 'saved.yml');
    const written = await f.run(['workflow', 'getparam', 'copywf', '-o', out]);
    assert.equal(written.status, 0, written.stderr);
    const saved = parse(readFileSync(out, 'utf8'));
    assert.equal(saved.Parameters.copy.parameters.threads.value, 7);
    assert.equal(saved.Inputs.load_reads.data[0].name, '/reads/default.fastq');

    // A node the workflow does not have is refused by the server.
    const wrong = writeFile(f.dir, 'wrong.yml', 'Parameters: {nosuchnode: {parameters: {}}}');
    const refused = await f.run(['workflow', 'setparam', 'copywf', '-p', wrong]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /nosuchnode/);
  });

  it('refuses a graph the server cannot validate (exit 1) and leaves no empty version', async () => {
    // The GeneDock example names a tool id that does not exist here.
    const refused = await f.run(['workflow', 'create', '-f', fixturePath('fastqc-workflow.yml'), '--name', 'Fastqc']);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /400 InvalidParameter: Put workflow definition failed/);
    const names = (await f.run(['workflow', 'ls', '--json'])).json().map((w: any) => w.workflow_name);
    assert.ok(!names.includes('Fastqc'));
  });
});
