import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CommandLineTool, Workflow } from '../../../src/domain/cwl/index.js';
import { assertIssue, BASE, load, loadError, loadProcess, yaml } from './helpers.js';

const echoTool = yaml`
  cwlVersion: v1.2
  class: CommandLineTool
  inputs:
    msg: string
  outputs:
    out: stdout
  baseCommand: echo
`;

/** A tool document with `body` after its header (body lines unindented). */
const tool = (body: string, version = 'v1.2'): string => `cwlVersion: ${version}\nclass: CommandLineTool\n${body}`;

describe('CWL documents: directives', () => {
  it('$import replaces a node by another file, spliced into lists, with ids resolved in the imported file', async () => {
    const loaded = (await loadProcess({
      'tool.cwl': tool('requirements:\n  - $import: types.yml\ninputs:\n  s: more.yml#Sample\noutputs: []\n'),
      'types.yml': 'class: SchemaDefRequirement\ntypes:\n  - $import: more.yml\n',
      'more.yml': yaml`
        - name: Sample
          type: record
          fields:
            id: string
            kind: Kind
        - name: Kind
          type: enum
          symbols: [a, b]
      `,
    })) as CommandLineTool;
    const type = loaded.inputs[0]!.type;
    assert.equal(type.kind, 'record');
    assert.equal(type.kind === 'record' && type.name, `${BASE}more.yml#Sample`);
    const kind = type.kind === 'record' ? type.fields.find((f) => f.name === 'kind')!.type : undefined;
    assert.deepEqual(kind?.kind === 'enum' && kind.symbols, [
      { uri: `${BASE}more.yml#Kind/a`, name: 'a' },
      { uri: `${BASE}more.yml#Kind/b`, name: 'b' },
    ]);
    const schemaDef = loaded.requirements[0]!;
    assert.equal(schemaDef.class === 'SchemaDefRequirement' && schemaDef.types[0], type, 'a named type is one shared object');
  });

  it('a #name type reference finds a SchemaDefRequirement type of the same document', async () => {
    const loaded = await loadProcess({
      'tool.cwl': tool(
        'requirements:\n  SchemaDefRequirement:\n    types: [{name: Pair, type: record, fields: {a: int}}]\ninputs:\n  p: "#Pair"\n  q: Pair[]\noutputs: []\n',
      ),
    });
    const [p, q] = loaded.inputs;
    assert.equal(p!.type.kind === 'record' && p!.type.name, `${BASE}tool.cwl#Pair`);
    assert.equal(q!.type.kind === 'array' && q!.type.items, p!.type);
  });

  it('$include gives the text of a file; $mixin lays fields over another document', async () => {
    const loaded = (await loadProcess({
      'tool.cwl': tool(yaml`
        requirements:
          InlineJavascriptRequirement:
            expressionLib: [{$include: lib.js}]
        inputs: []
        outputs: []
        hints:
          - $mixin: docker.yml
            dockerImageId: mine
      `),
      'lib.js': 'function twice(x) { return 2 * x; }\n',
      'docker.yml': 'class: DockerRequirement\ndockerPull: debian:12\ndockerImageId: theirs\n',
    })) as CommandLineTool;
    const [javascript] = loaded.requirements;
    assert.deepEqual(javascript, {
      class: 'InlineJavascriptRequirement',
      expressionLib: ['function twice(x) { return 2 * x; }\n'],
      at: javascript!.at,
    });
    assert.deepEqual({ ...loaded.hints[0], at: undefined }, { class: 'DockerRequirement', dockerPull: 'debian:12', dockerImageId: 'mine', at: undefined });
  });

  it('a missing $import is reported where the directive is, and an import cycle is refused', async () => {
    const missing = await loadError({ 'tool.cwl': tool('inputs: []\noutputs: []\nhints:\n  - $import: nowhere.yml\n') });
    assertIssue(missing, /cannot \$import .*nowhere\.yml: no such document/, { file: 'tool.cwl', line: 6 });
    const cycle = await loadError({
      'tool.cwl': tool('inputs: []\noutputs: []\nhints:\n  - $import: a.yml\n'),
      'a.yml': '$import: b.yml\n',
      'b.yml': '$import: a.yml\n',
    });
    assertIssue(cycle, /imports itself/);
  });

  it('positions survive $import: an error inside an imported file names that file and line', async () => {
    const error = await loadError({
      'tool.cwl': tool('inputs: []\noutputs: []\nrequirements:\n  - $import: req.yml\n'),
      'req.yml': 'class: DockerRequirement\n\ndockerPul: debian\n',
    });
    assertIssue(error, /invalid field 'dockerPul' in DockerRequirement; did you mean 'dockerPull'\?/, { file: 'req.yml', line: 3 });
  });

  it('a YAML syntax error is a validation error at its line', async () => {
    assertIssue(await loadError({ 'tool.cwl': tool('inputs: [\noutputs: []\n') }), /^YAML: /, { file: 'tool.cwl', line: 4 });
  });
});

describe('CWL documents: $graph, $base, $namespaces, $schemas', () => {
  const packed = yaml`
    cwlVersion: v1.2
    $graph:
      - id: tool
        class: CommandLineTool
        inputs: {msg: string}
        outputs: {out: stdout}
        baseCommand: echo
      - id: main
        class: Workflow
        inputs: {msg: string}
        outputs:
          out: {type: File, outputSource: step/out}
        steps:
          step:
            run: "#tool"
            in: {msg: msg}
            out: [out]
  `;

  it('selects #main, or the entry the URI names, and resolves ids inside the graph', async () => {
    const main = (await loadProcess({ 'packed.cwl': packed })) as Workflow;
    assert.equal(main.id, `${BASE}packed.cwl#main`);
    assert.equal(main.steps[0]!.id, `${BASE}packed.cwl#main/step`);
    assert.equal(main.steps[0]!.run.id, `${BASE}packed.cwl#tool`);
    assert.deepEqual(main.steps[0]!.in[0]!.source, [`${BASE}packed.cwl#main/msg`]);
    assert.deepEqual(main.outputs[0]!.outputSource, [`${BASE}packed.cwl#main/step/out`]);
    const selected = (await load({ 'packed.cwl': packed }, 'packed.cwl#tool')).process;
    assert.equal(selected.class, 'CommandLineTool');
    assert.equal(selected.inputs[0]!.id, `${BASE}packed.cwl#tool/msg`);
  });

  it('a graph without #main and several processes asks for one; an unknown fragment lists what there is', async () => {
    assertIssue(await loadError({ 'packed.cwl': packed.replace('id: main', 'id: wf') }), /holds several processes; name one \(#tool, #wf\)/);
    assertIssue(await loadError({ 'packed.cwl': packed }, 'packed.cwl#nope'), /has no process #nope \(it has: #tool, #main\)/);
  });

  it('$base moves the base of relative references; $namespaces expand prefixes; $schemas become absolute', async () => {
    const loaded = await loadProcess({
      'tool.cwl': yaml`
        $base: "file:///elsewhere/"
        $namespaces: {edam: "http://edamontology.org/"}
        $schemas: [EDAM.owl]
        cwlVersion: v1.2
        class: CommandLineTool
        inputs:
          f:
            type: File
            format: edam:format_1930
            default: {class: File, location: reads.fq}
        outputs: []
      `,
    });
    assert.equal(loaded.id, 'file:///elsewhere/');
    assert.deepEqual(loaded.inputs[0]!.format, ['http://edamontology.org/format_1930']);
    assert.deepEqual(loaded.inputs[0]!.default, { class: 'File', location: 'file:///elsewhere/reads.fq' });
    assert.deepEqual(loaded.schemas, ['file:///elsewhere/EDAM.owl']);
    assert.deepEqual(loaded.namespaces, { edam: 'http://edamontology.org/' });
  });
});

describe('CWL documents: ids and references', () => {
  const workflow = (body: string, version = 'v1.2'): string => `cwlVersion: ${version}\nclass: Workflow\n${body}`;

  it('gives absolute ids to processes, parameters, steps and step inputs/outputs, scoped as schema-salad scopes them', async () => {
    const wf = (await loadProcess({
      'wf.cwl': workflow(yaml`
        requirements: [{class: ScatterFeatureRequirement}]
        inputs:
          msgs: string[]
        outputs:
          outs: {type: 'File[]', outputSource: echo/out}
        steps:
          echo:
            run: tools/echo.cwl
            scatter: msg
            in: {msg: msgs}
            out: [out]
      `),
      'tools/echo.cwl': echoTool,
    })) as Workflow;
    assert.equal(wf.id, `${BASE}wf.cwl`);
    assert.equal(wf.inputs[0]!.id, `${BASE}wf.cwl#msgs`);
    const step = wf.steps[0]!;
    assert.deepEqual([step.id, step.in[0]!.id, step.out[0]!.id], [`${BASE}wf.cwl#echo`, `${BASE}wf.cwl#echo/msg`, `${BASE}wf.cwl#echo/out`]);
    assert.deepEqual(step.scatter, [`${BASE}wf.cwl#echo/msg`]);
    assert.equal(step.run.id, `${BASE}tools/echo.cwl`);
    assert.equal(step.run.inputs[0]!.id, `${BASE}tools/echo.cwl#msg`);
  });

  it('an embedded process is scoped under its step (step/run) and may declare another version', async () => {
    const wf = (await loadProcess({
      'wf.cwl': workflow(yaml`
        inputs: {x: string}
        outputs: []
        steps:
          s:
            in: {msg: x}
            out: []
            run:
              cwlVersion: v1.0
              class: CommandLineTool
              inputs: {msg: string}
              outputs: []
      `),
    })) as Workflow;
    const run = wf.steps[0]!.run;
    assert.equal(run.id, `${BASE}wf.cwl#s/run`);
    assert.equal(run.inputs[0]!.id, `${BASE}wf.cwl#s/run/msg`);
    assert.equal(run.cwlVersion, 'v1.0');
    assert.deepEqual(run.hints, [], 'the v1.0 upgrade hints go on top-level processes only');
  });

  it('an unknown source names the nearest known one; a step output its process lacks is refused', async () => {
    const error = await loadError({
      'wf.cwl': workflow(yaml`
        inputs: {message: string}
        outputs:
          o: {type: File, outputSource: echo/ot}
        steps:
          echo:
            run: echo.cwl
            in: {msg: mesage}
            out: [out, extra]
      `),
      'echo.cwl': echoTool,
    });
    assertIssue(error, /'source' of msg names 'mesage', which is not a workflow input or a step output; did you mean 'message'\?/, {
      file: 'wf.cwl',
      line: 9,
    });
    assertIssue(error, /'outputSource' of o names 'echo\/ot'.*did you mean 'echo\/out'\?/, { file: 'wf.cwl', line: 5 });
    assertIssue(error, /step 'echo' output 'extra' is not an output of its process \(expected one of: out\)/);
  });

  it('a step that does not feed a required input of its process is refused, as cwltool refuses it', async () => {
    const error = await loadError({
      'wf.cwl': workflow('inputs: []\noutputs: []\nsteps:\n  echo: {run: echo.cwl, in: {}, out: []}\n'),
      'echo.cwl': echoTool,
    });
    assertIssue(error, /step 'echo' is missing required input 'msg'/, { file: 'wf.cwl', line: 6 });
  });

  it('a run that comes back to its own workflow is refused', async () => {
    const steps = (target: string): string =>
      workflow(`requirements: [{class: SubworkflowFeatureRequirement}]\ninputs: []\noutputs: []\nsteps:\n  s: {run: ${target}, in: {}, out: []}\n`);
    assertIssue(await loadError({ 'a.cwl': steps('b.cwl'), 'b.cwl': steps('a.cwl') }), /runs itself/);
  });
});

describe('CWL documents: versions', () => {
  it('a document without cwlVersion is refused, unless a run names it (it takes the version of the one that runs it)', async () => {
    assertIssue(await loadError({ 'tool.cwl': 'class: CommandLineTool\ninputs: []\noutputs: []\n' }), /no cwlVersion/);
    const wf = (await loadProcess({
      'wf.cwl': 'cwlVersion: v1.1\nclass: Workflow\ninputs: []\noutputs: []\nsteps:\n  s: {run: t.cwl, in: {}, out: []}\n',
      't.cwl': 'class: CommandLineTool\ninputs: []\noutputs: []\n',
    })) as Workflow;
    assert.equal(wf.steps[0]!.run.cwlVersion, 'v1.1');
    assertIssue(await loadError({ 't.cwl': tool('inputs: []\noutputs: []\n', 'v1.2.0-dev4') }), /development version/);
    assertIssue(await loadError({ 't.cwl': tool('inputs: []\noutputs: []\n', 'draft-3') }), /unsupported cwlVersion/);
  });

  it('checks each document against its own version: v1.2 syntax in a v1.0 or v1.1 document is refused', async () => {
    const v10 = await loadError({
      't.cwl': tool(
        yaml`
          inputs:
            i:
              type: File
              secondaryFiles: [{pattern: .bai, required: true}]
              loadContents: true
          outputs: []
          requirements:
            ResourceRequirement: {coresMin: 0.5}
            ToolTimeLimit: {timelimit: 5}
        `,
        'v1.0',
      ),
    });
    assertIssue(v10, /secondaryFiles' of input 'i' must be a pattern or an expression \(objects came in v1.1\)/, { file: 't.cwl', line: 6 });
    assertIssue(v10, /field 'loadContents' of input 'i' is not part of CWL v1.0 \(it was added in v1.1\)/, { file: 't.cwl', line: 7 });
    assertIssue(v10, /'coresMin' of ResourceRequirement must be a whole number or an expression/, { file: 't.cwl', line: 10 });
    assertIssue(v10, /requirement ToolTimeLimit is not part of CWL v1.0/, { file: 't.cwl', line: 11 });
    const v11 = await loadError({
      'wf.cwl': 'cwlVersion: v1.1\nclass: Workflow\ninputs: []\noutputs:\n  o: {type: string, outputSource: [], pickValue: first_non_null}\nsteps: []\n',
    });
    assertIssue(v11, /field 'pickValue' of output 'o' is not part of CWL v1.1 \(it was added in v1.2\)/);
    const ok = await loadProcess({ 't.cwl': tool('inputs: []\noutputs: []\nrequirements:\n  ResourceRequirement: {coresMin: 0.5}\n') });
    assert.equal(ok.requirements[0]!.class === 'ResourceRequirement' && ok.requirements[0].coresMin, 0.5);
  });

  it('upgrades v1.0 as cwltool does: default hints, plain secondaryFiles patterns, cwltool extension classes', async () => {
    const loaded = await loadProcess({
      't.cwl': yaml`
        cwlVersion: v1.0
        $namespaces: {cwltool: "http://commonwl.org/cwltool#"}
        class: CommandLineTool
        requirements:
          cwltool:LoadListingRequirement: {loadListing: no_listing}
        inputs:
          i: {type: File, secondaryFiles: [.bai, "^.fai?"]}
        outputs: []
      `,
    });
    assert.deepEqual(loaded.hints, [
      { class: 'LoadListingRequirement', loadListing: 'deep_listing' },
      { class: 'NetworkAccess', networkAccess: true },
    ]);
    assert.equal(loaded.requirements[0]!.class, 'LoadListingRequirement');
    assert.deepEqual(loaded.inputs[0]!.secondaryFiles, [
      { pattern: '.bai', required: true },
      { pattern: '^.fai?', required: true },
    ]);
    assert.equal(loaded.cwlVersion, 'v1.0');
  });

  it('a v1.0 workflow input binding keeps loadContents and drops the rest with a warning', async () => {
    const loaded = await load({
      'wf.cwl': 'cwlVersion: v1.0\nclass: Workflow\ninputs:\n  f: {type: File, inputBinding: {loadContents: true, position: 2}}\noutputs: []\nsteps: []\n',
    });
    assert.equal(loaded.process.inputs[0]!.loadContents, true);
    assert.equal(loaded.process.inputs[0]!.inputBinding, undefined);
    assert.ok(loaded.warnings.some((w) => /field 'position' of the inputBinding of input 'f' is ignored/.test(w.message)));
  });
});
