import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CommandLineTool, ExpressionTool, Operation, Workflow } from '../../../src/domain/cwl/index.js';
import { describeType } from '../../../src/domain/cwl/index.js';
import { assertIssue, BASE, load, loadError, loadProcess, TOOL, yaml } from './helpers.js';

const tool = async (body: string): Promise<CommandLineTool> => (await loadProcess({ 't.cwl': TOOL + body })) as CommandLineTool;

describe('CWL normalization: forms and shorthands', () => {
  it('map forms of inputs, outputs, requirements and hints become lists, sorted by key as schema-salad sorts them', async () => {
    const t = await tool(
      yaml`
        inputs:
          zeta: string
          alpha: {type: int, default: 3}
        outputs:
          out: {type: File, outputBinding: {glob: out.txt}}
        requirements:
          ShellCommandRequirement: {}
          EnvVarRequirement:
            envDef: {B: two, A: one}
        hints:
          SoftwareRequirement:
            packages: {samtools: {version: ["1.19"]}}
      `,
    );
    assert.deepEqual(
      t.inputs.map((i) => [i.name, describeType(i.type)]),
      [
        ['alpha', 'int'],
        ['zeta', 'string'],
      ],
    );
    assert.equal(t.inputs[0]!.default, 3);
    assert.deepEqual(
      t.requirements.map((r) => r.class),
      ['EnvVarRequirement', 'ShellCommandRequirement'],
    );
    const env = t.requirements[0]!;
    assert.deepEqual(env.class === 'EnvVarRequirement' && env.envDef, [
      { envName: 'A', envValue: 'one' },
      { envName: 'B', envValue: 'two' },
    ]);
    const software = t.hints[0]!;
    assert.deepEqual(software.class === 'SoftwareRequirement' && software.packages, [{ package: 'samtools', version: ['1.19'], specs: [] }]);
  });

  it('expands type shorthands (T[], T?, T[]?) and flattens unions', async () => {
    const t = await tool('inputs:\n  a: string[]\n  b: File?\n  c: "int[]?"\n  d: ["null", "string[]", "null"]\noutputs: []\n');
    assert.deepEqual(
      t.inputs.map((i) => describeType(i.type)),
      ['string[]', 'File?', 'int[]?', 'string[]?'],
    );
    assert.deepEqual(t.inputs[2]!.type, { kind: 'union', types: [{ kind: 'null' }, { kind: 'array', items: { kind: 'int' } }] });
  });

  it('names the nearest type for an unknown one, and refuses a recursive named type', async () => {
    assertIssue(await loadError({ 't.cwl': `${TOOL}inputs:\n  a: Fiel\noutputs: []\n` }), /unknown type 'Fiel'; did you mean 'File'\?/, {
      file: 't.cwl',
      line: 4,
    });
    const recursive = await loadError({
      't.cwl': yaml`
        cwlVersion: v1.2
        class: CommandLineTool
        requirements:
          SchemaDefRequirement:
            types:
              - {name: Node, type: record, fields: {next: Node?}}
        inputs:
          a: Node
        outputs: []
      `,
    });
    assertIssue(recursive, /type 'Node' refers to itself/);
  });

  it('rewrites stdout, stderr and stdin shorthands', async () => {
    const t = await tool('stdout: out.txt\ninputs:\n  text: stdin\noutputs:\n  out: stdout\n  err: stderr\n');
    assert.equal(t.stdin, '$(inputs.text.path)');
    assert.equal(t.stdout, 'out.txt');
    assert.match(t.stderr!, /^stderr-[0-9a-f]{16}$/);
    assert.deepEqual(
      t.outputs.map((o) => [o.name, o.type.kind, o.outputBinding?.glob]),
      [
        ['err', 'File', [t.stderr]],
        ['out', 'File', ['out.txt']],
      ],
    );
    assert.equal((await tool('inputs: []\noutputs:\n  out: stderr\n')).stderr, t.stderr, 'a generated name depends on the tool id only: stable across loads');
    assertIssue(await loadError({ 't.cwl': 'cwlVersion: v1.0\nclass: CommandLineTool\ninputs:\n  text: stdin\noutputs: []\n' }), /'stdin' is only valid/);
  });

  it('gives baseCommand as a list and string arguments as bindings, with binding defaults filled in', async () => {
    const t = await tool(
      yaml`
        baseCommand: echo
        arguments: [-n, {prefix: --sep, valueFrom: $(inputs.x), position: 2, separate: false}]
        inputs:
          x: {type: string, inputBinding: {prefix: -x}}
        outputs: []
      `,
    );
    assert.deepEqual(t.baseCommand, ['echo']);
    assert.deepEqual(t.arguments, [
      { position: 0, separate: true, shellQuote: true, valueFrom: '-n' },
      { position: 2, separate: false, shellQuote: true, prefix: '--sep', valueFrom: '$(inputs.x)' },
    ]);
    assert.deepEqual(t.inputs[0]!.inputBinding, { position: 0, separate: true, shellQuote: true, prefix: '-x' });
    assert.deepEqual((await tool('baseCommand: [samtools, view]\ninputs: []\noutputs: []\n')).baseCommand, ['samtools', 'view']);
  });

  it('reads every secondaryFiles form: patterns, ^ patterns, ? suffix, objects, expressions; required defaults by side', async () => {
    const t = await tool(
      yaml`
        inputs:
          bam:
            type: File
            secondaryFiles: [.bai, "^.fai?", {pattern: .crai, required: false}, "$(self.basename).idx"]
        outputs:
          o:
            type: File
            outputBinding: {glob: o}
            secondaryFiles: .md5
      `,
    );
    assert.deepEqual(t.inputs[0]!.secondaryFiles, [
      { pattern: '.bai', required: true },
      { pattern: '^.fai', required: false },
      { pattern: '.crai', required: false },
      { pattern: '$(self.basename).idx', required: true },
    ]);
    assert.deepEqual(t.outputs[0]!.secondaryFiles, [{ pattern: '.md5', required: false }]);
  });

  it('keeps loadContents, loadListing, format, streamable, doc and label; folds inputBinding.loadContents', async () => {
    const loaded = (await loadProcess({
      't.cwl': yaml`
        $namespaces: {edam: "http://edamontology.org/"}
        cwlVersion: v1.2
        class: CommandLineTool
        inputs:
          a:
            type: File
            inputBinding: {loadContents: true}
            format: [edam:format_1929, $(inputs.fmt)]
            streamable: true
            doc: [first, second]
            label: A
          d: {type: Directory, loadListing: shallow_listing}
        outputs:
          o: {type: File, format: edam:format_1930, outputBinding: {glob: "*.fa", loadContents: true, outputEval: "$(self[0])"}}
      `,
    })) as CommandLineTool;
    const [a, d] = loaded.inputs;
    assert.deepEqual(
      [a!.loadContents, a!.format, a!.streamable, a!.doc, a!.label],
      [true, ['http://edamontology.org/format_1929', '$(inputs.fmt)'], true, 'first\nsecond', 'A'],
    );
    assert.deepEqual(a!.inputBinding, { position: 0, separate: true, shellQuote: true });
    assert.equal(d!.loadListing, 'shallow_listing');
    assert.equal(loaded.outputs[0]!.format, 'http://edamontology.org/format_1930');
    assert.deepEqual(loaded.outputs[0]!.outputBinding, { glob: ['*.fa'], loadContents: true, outputEval: '$(self[0])' });
  });

  it('resolves File and Directory locations in defaults and InitialWorkDirRequirement against the document', async () => {
    const t = (await loadProcess({
      'tools/t.cwl': yaml`
        cwlVersion: v1.2
        class: CommandLineTool
        requirements:
          InitialWorkDirRequirement:
            listing:
              - {class: File, location: ../data/ref.fa}
              - {entryname: run.sh, entry: "echo hi"}
              - $(inputs.extra)
        inputs:
          ref:
            type: File
            default: {class: File, path: ../data/ref.fa, secondaryFiles: [{class: File, location: ref.fa.fai}]}
        outputs: []
      `,
    })) as CommandLineTool;
    assert.deepEqual(t.inputs[0]!.default, {
      class: 'File',
      location: `${BASE}data/ref.fa`,
      secondaryFiles: [{ class: 'File', location: `${BASE}tools/ref.fa.fai` }],
    });
    const iwd = t.requirements[0]!;
    assert.deepEqual(iwd.class === 'InitialWorkDirRequirement' && iwd.listing, [
      { kind: 'file', value: { class: 'File', location: `${BASE}data/ref.fa` } },
      { kind: 'dirent', entryname: 'run.sh', entry: 'echo hi', writable: false },
      { kind: 'expression', expression: '$(inputs.extra)' },
    ]);
  });
});

describe('CWL normalization: fields and classes', () => {
  it('refuses an unknown field naming the nearest known one, and keeps namespaced fields as extensions', async () => {
    const error = await loadError({ 't.cwl': `${TOOL}inputs:\n  a: {type: string, defualt: x}\noutputs: []\nbaseComand: echo\n` });
    assertIssue(error, /invalid field 'defualt' in input 'a'; did you mean 'default'\?/, { file: 't.cwl', line: 4 });
    assertIssue(error, /invalid field 'baseComand' in CommandLineTool; did you mean 'baseCommand'\?/, { file: 't.cwl', line: 6 });
    const loaded = await load({ 't.cwl': `$namespaces: {s: "https://schema.org/"}\n${TOOL}s:author: Ada\nex:thing: 1\ninputs: []\noutputs: []\n` });
    assert.deepEqual(loaded.process.extensions, { 'https://schema.org/author': 'Ada', 'ex:thing': 1 });
    assert.ok(loaded.warnings.some((w) => /'ex:thing'.*\$namespaces does not declare/.test(w.message)));
  });

  it('an unknown requirement class is an error; an unknown hint class a warning, kept as an extension hint', async () => {
    assertIssue(
      await loadError({ 't.cwl': `${TOOL}requirements: [{class: DockerRequirment}]\ninputs: []\noutputs: []\n` }),
      /unknown requirement class 'DockerRequirment'; did you mean 'DockerRequirement'\?/,
    );
    const loaded = await load({
      't.cwl': `$namespaces: {ex: "http://example.com/"}\n${TOOL}hints:\n  ex:Gpu: {count: 1}\ninputs: []\noutputs: []\n`,
    });
    assert.deepEqual(
      loaded.process.extensionHints.map((h) => [h.class, h.fields]),
      [['http://example.com/Gpu', { count: 1 }]],
    );
    assert.ok(loaded.warnings.some((w) => /unknown hint class 'http:\/\/example.com\/Gpu'/.test(w.message)));
  });

  it('checks requirement fields and values (a negative time limit, a binding position that is not a number)', async () => {
    const error = await loadError({
      't.cwl': `${TOOL}requirements:\n  ToolTimeLimit: {timelimit: -1}\ninputs:\n  a: {type: int, inputBinding: {position: first}}\noutputs: []\n`,
    });
    assertIssue(error, /'timelimit' of ToolTimeLimit must not be negative/, { file: 't.cwl', line: 4 });
    assertIssue(error, /'position' of the inputBinding of input 'a' must be a whole number or an expression, not "first"/);
  });

  it('reads ExpressionTool and Operation; an ExpressionTool needs an expression', async () => {
    const expr = (await loadProcess({
      'e.cwl': 'cwlVersion: v1.2\nclass: ExpressionTool\ninputs: {x: int}\noutputs: {y: int}\nexpression: "$({y: inputs.x})"\n',
    })) as ExpressionTool;
    assert.deepEqual([expr.class, expr.expression, expr.outputs[0]!.name], ['ExpressionTool', '$({y: inputs.x})', 'y']);
    assertIssue(
      await loadError({ 'e.cwl': 'cwlVersion: v1.2\nclass: ExpressionTool\ninputs: []\noutputs: []\nexpression: "{y: 1}"\n' }),
      /'expression' of ExpressionTool must be an expression/,
    );
    const op = (await loadProcess({ 'o.cwl': 'cwlVersion: v1.2\nclass: Operation\ninputs: {x: File}\noutputs: {y: File}\n' })) as Operation;
    assert.equal(op.class, 'Operation');
    assertIssue(await loadError({ 'o.cwl': 'cwlVersion: v1.1\nclass: Operation\ninputs: []\noutputs: []\n' }), /class Operation is not part of CWL v1.1/);
  });

  it('reads steps: in (with defaults, valueFrom, linkMerge, pickValue), when, scatter and scatterMethod', async () => {
    const wf = (await loadProcess({
      'wf.cwl': yaml`
        cwlVersion: v1.2
        class: Workflow
        requirements: {ScatterFeatureRequirement: {}, MultipleInputFeatureRequirement: {}, StepInputExpressionRequirement: {}, InlineJavascriptRequirement: {}}
        inputs: {a: "string[]", b: "string[]", c: string?}
        outputs:
          o: {type: "File[]", outputSource: [s/out], linkMerge: merge_flattened, pickValue: all_non_null}
        steps:
          s:
            run: echo.cwl
            when: $(inputs.c !== null)
            scatter: [msg, other]
            scatterMethod: flat_crossproduct
            in:
              msg: {source: [a], linkMerge: merge_nested}
              other: {source: [a, b], pickValue: first_non_null}
              c: {source: c, default: none, valueFrom: $(self.toUpperCase())}
            out: [{id: out}]
      `,
      'echo.cwl': `${TOOL}inputs: {msg: string, other: string?}\noutputs: {out: stdout}\n`,
    })) as Workflow;
    const step = wf.steps[0]!;
    assert.equal(step.when, '$(inputs.c !== null)');
    assert.deepEqual(step.scatter, [`${BASE}wf.cwl#s/msg`, `${BASE}wf.cwl#s/other`]);
    assert.equal(step.scatterMethod, 'flat_crossproduct');
    const [c, msg, other] = step.in;
    assert.deepEqual([msg!.source, msg!.linkMerge], [[`${BASE}wf.cwl#a`], 'merge_nested']);
    assert.deepEqual([other!.source.length, other!.pickValue], [2, 'first_non_null']);
    assert.deepEqual([c!.default, c!.valueFrom], ['none', '$(self.toUpperCase())']);
    assert.deepEqual([wf.outputs[0]!.linkMerge, wf.outputs[0]!.pickValue], ['merge_flattened', 'all_non_null']);
  });

  it('refuses a workflow using a feature it does not require, counting what it inherits', async () => {
    const files = {
      'wf.cwl': yaml`
        cwlVersion: v1.2
        class: Workflow
        inputs: {a: "string[]"}
        outputs: []
        steps:
          s: {run: echo.cwl, scatter: msg, in: {msg: a}, out: []}
          t: {run: inner.cwl, in: {}, out: []}
      `,
      'inner.cwl': `cwlVersion: v1.2\nclass: Workflow\ninputs: []\noutputs: []\nsteps: []\n`,
      'echo.cwl': `${TOOL}inputs: {msg: string}\noutputs: []\n`,
    };
    const error = await loadError(files);
    assertIssue(error, /step 's' scatters but ScatterFeatureRequirement is not among the workflow's requirements/, { file: 'wf.cwl', line: 6 });
    assertIssue(error, /step 't' runs a workflow but SubworkflowFeatureRequirement/);
    const hinted = files['wf.cwl'].replace('inputs:', 'hints: [{class: ScatterFeatureRequirement}, {class: SubworkflowFeatureRequirement}]\ninputs:');
    assert.equal((await loadProcess({ ...files, 'wf.cwl': hinted })).class, 'Workflow');
    assertIssue(
      await loadError({
        ...files,
        'wf.cwl': files['wf.cwl']
          .replace('scatter: msg', 'scatter: [msg, mgs]')
          .replace('inputs:', 'requirements: [{class: ScatterFeatureRequirement}, {class: SubworkflowFeatureRequirement}]\ninputs:'),
      }),
      /'scatter' of s names 'mgs', which is not an input of this step; did you mean 'msg'\?/,
    );
  });
});
