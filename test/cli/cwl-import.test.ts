/**
 * `gdflow cwl import`, the built CLI against a real server over HTTP: a document written in several files (run: to
 * other files, $import, $include, SchemaDefRequirement imports, a default File) becomes tool and workflow versions
 * that GeneDock's commands list, `gdflow cwl export` gives the imported document back, and that document runs.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { after, before, describe, it } from 'node:test';
import { cliFixture, type CliFixture } from './support.js';

let f: CliFixture;

function write(path: string, text: string): void {
  const full = join(f.dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
}

before(async () => {
  f = await cliFixture();
  write('types/sample.yml', 'name: Sample\ntype: record\nfields:\n  label: string\n  reads: File\n');
  write('lib/greet.js', 'function greet(name) { return "hello " + name; }\n');
  write('data/banner.txt', '*** banner ***\n');
  write(
    'tools/greet.cwl',
    `cwlVersion: v1.2
class: CommandLineTool
requirements:
  InlineJavascriptRequirement:
    expressionLib: [{$include: ../lib/greet.js}]
  SchemaDefRequirement:
    types: [{$import: ../types/sample.yml}]
inputs:
  sample: ../types/sample.yml#Sample
  banner: {type: File, default: {class: File, location: ../data/banner.txt}}
arguments: [{valueFrom: "$(greet(inputs.sample.label))"}]
baseCommand: echo
stdout: greeting.txt
outputs:
  greeting: stdout
`,
  );
  write(
    'hello.cwl',
    `cwlVersion: v1.2
class: Workflow
label: say hello
requirements: {SchemaDefRequirement: {types: [{$import: types/sample.yml}]}}
inputs:
  sample: types/sample.yml#Sample
steps:
  greet: {run: tools/greet.cwl, in: {sample: sample}, out: [greeting]}
outputs:
  greeting: {type: File, outputSource: greet/greeting}
`,
  );
  write('reads.fq', '@r\nACGT\n+\nIIII\n');
  write('job.yml', 'sample: {label: world, reads: {class: File, path: reads.fq}}\n');
});
after(async () => f.close());

describe('gdflow cwl import', () => {
  it('imports a document of several files as a workflow and the tools it runs, once', async () => {
    const first = await f.run(['cwl', 'import', 'hello.cwl']);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout, 'tool greet version 1 (#greet.cwl)\nworkflow hello version 1 (#main)\n');
    const again = await f.run(['cwl', 'import', 'hello.cwl', '--json']);
    assert.deepEqual(
      again.json().imported.map((i: { name: string; created: boolean }) => [i.name, i.created]),
      [
        ['greet', false],
        ['hello', false],
      ],
    );
    const named = await f.run(['cwl', 'import', 'tools/greet.cwl', '--name', 'greeter']);
    assert.equal(named.stdout, 'tool greeter version 1 (#main)\n');
    const tools = await f.run(['tool', 'ls']);
    assert.match(tools.stdout, /^greet\s+1\s+checked\s+cwl\s/m);
    // The record input is a parameter in the view (only Files and Directories are loaddata nodes): the step is first.
    const graph = await f.run(['workflow', 'graph', 'hello']);
    assert.match(graph.stdout, /^\s+0\s+greet\s+tool\s+greet\s+sample\s+greeting\s+greet$/m);
  });

  it('exports the imported document, with its files inlined and its default File in the data store, and it runs', async () => {
    const exported = await f.run(['cwl', 'export', 'workflow', 'hello', '--json']);
    assert.equal(exported.status, 0, exported.stderr);
    const document = exported.json();
    const text = JSON.stringify(document);
    assert.doesNotMatch(text, /\$import|\$include|file:\/\//, 'nothing refers to the files it was read from');
    assert.match(text, /function greet\(name\)/);
    assert.match(text, /"location":"gdflow:cwl\/inputs\/[0-9a-f]{40}\/banner\.txt"/);
    const tool = parseYaml((await f.run(['cwl', 'export', 'tool', 'greet'])).stdout);
    assert.equal(tool.id, '#main');
    // The exported document runs as it is (its default File is in the data store already).
    writeFileSync(join(f.dir, 'exported.cwl'), exported.stdout);
    const run = await f.run(['cwl', 'run', '--quiet', '--outdir', 'out', 'exported.cwl', 'job.yml']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.json().greeting.size, 'hello world\n'.length);
  });

  it('exits 33 for a feature gdflow does not support and 1 for an invalid document, importing nothing', async () => {
    write(
      'mpi.cwl',
      'cwlVersion: v1.2\nclass: CommandLineTool\nrequirements: [{class: MPIRequirement, processes: 2}]\ninputs: []\noutputs: []\nbaseCommand: "true"\n',
    );
    const mpi = await f.run(['cwl', 'import', 'mpi.cwl']);
    assert.equal(mpi.status, 33, mpi.stderr);
    assert.match(mpi.stderr, /unsupported: MPIRequirement/);
    write('broken.cwl', 'cwlVersion: v1.2\nclass: Workflow\ninputs: {}\noutputs: {}\nsteps:\n  a: {run: none.cwl, in: {}, out: []}\n');
    const broken = await f.run(['cwl', 'import', 'broken.cwl']);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /broken\.cwl:6:\d+: cannot read .*none\.cwl|no such file: .*none\.cwl/);
    const tools = await f.run(['tool', 'ls', '--json']);
    assert.doesNotMatch(tools.stdout, /"mpi"|"broken"/);
  });
});
