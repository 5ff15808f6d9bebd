/**
 * The CWL export (domain/cwl/export/, docs/cwl.md "Export"): the documents it writes, and the command their embedded
 * code makes, evaluated as a CWL runner evaluates it (helpers/cwl-expressions.ts) and compared with the command gdflow
 * renders for the same values. cwltool's own validation and runs are in test/e2e/cwl-export.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { exportTool, exportWorkflow, formatTerm, formatUri, toolIds, type ToolSource } from '../../../src/domain/cwl/export/index.js';
import { InMemoryDocumentSource, loadDocument } from '../../../src/domain/cwl/index.js';
import { InvalidInput } from '../../../src/domain/errors.js';
import { JOB_DIRECTORY, jobFilePath, RenderError, renderCommand } from '../../../src/domain/render/index.js';
import { relocateJobDirectory } from '../../../src/domain/render/work-dir.js';
import { CLOSE, OPEN } from '../../../src/domain/render/sentinel.js';
import { inputFileNames, outputFileNames } from '../../../src/domain/tasks/file-names.js';
import { readToolDefinition, type ToolDefinition } from '../../../src/domain/tools/definition.js';
import { coerceParameter } from '../../../src/domain/tools/parameter-values.js';
import { buildGraph, type ResolvedTool } from '../../../src/domain/workflows/graph.js';
import { buildRunTemplate } from '../../../src/domain/workflows/run-template.js';
import { evaluateExpression, evaluationError } from '../../helpers/cwl-expressions.js';
import { fixturePath, repoRoot } from '../../helpers/paths.js';
import { EXACT_CONTEXTS, HOSTILE, RUN_ONLY_CONTEXTS } from '../../helpers/shell-contexts.js';

type Json = any;

const OPTIONS = { gdflowVersion: 'test' };
const REQUIREMENTS = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 2, mem: '2g', disk: '4g' } };

const definitionOf = (configs: Record<string, unknown>): ToolDefinition => readToolDefinition({ requirements: REQUIREMENTS, ...configs });
const sourceOf = (definition: ToolDefinition, name = 'tool'): ToolSource => ({ account: 'alice', project: 'default', name, version: 3, definition });

function demoTool(file: string): ToolDefinition {
  const { app } = parseYaml(readFileSync(join(repoRoot(), 'examples', 'demo', file), 'utf8')) as { app: Record<string, unknown> };
  return readToolDefinition(app);
}

/** What a runner hands to the expressions: a File per name, as cwltool fills it in. */
const file = (basename: string): Json => ({ class: 'File', basename, path: `/staging/${basename}`, location: `file:///staging/${basename}` });

/** A runtime whose cores, RAM and disk are what the ResourceRequirement pins (the tool's). */
function runtimeFor(definition: ToolDefinition, outdir: string): Json {
  return { outdir, tmpdir: '/tmp', cores: definition.resources.cpu, ram: definition.resources.memMb, outdirSize: definition.resources.diskMb };
}

/** The exported tool's command for `inputs`, evaluated from the document as a runner evaluates it. */
function exportedCommand(document: Json, inputs: Json, runtime: Json): string {
  const lib = document.requirements.InlineJavascriptRequirement.expressionLib as string[];
  return evaluateExpression(lib, document.arguments[0].valueFrom, { inputs, runtime }) as string;
}

/**
 * The command a gdflow job renders for the same values: files named as the planner names them, at /var/data (or at
 * `workDir`, as the exported tool renders it there), parameters read as activation reads them.
 */
function gdflowCommand(definition: ToolDefinition, files: Record<string, string[]>, values: Record<string, unknown>, workDir = JOB_DIRECTORY): string {
  const at = (kind: 'inputs' | 'outputs', port: string, name: string): string => jobFilePath(kind, port, name).replace(JOB_DIRECTORY, workDir);
  const inputs = Object.fromEntries(Object.keys(definition.inputs).map((port) => [port, inputFileNames(files[port] ?? []).map((n) => at('inputs', port, n))]));
  const outputs = Object.fromEntries(
    Object.values(definition.outputs).map((p) => [p.name, outputFileNames(p.name, p.formats, p.minitems, []).map((n) => at('outputs', p.name, n))]),
  );
  const parameters = Object.fromEntries(Object.values(definition.parameters).map((spec) => [spec.name, coerceParameter(spec, values[spec.name], spec.name)]));
  return renderCommand({ tool: definition, inputs, outputs, parameters, ...(workDir !== JOB_DIRECTORY ? { workDir } : {}) }).command;
}

/** The CWL input object for those values. */
function cwlInputs(definition: ToolDefinition, files: Record<string, string[]>, values: Record<string, unknown>): Json {
  const ids = toolIds(definition);
  const inputs: Json = {};
  for (const port of Object.values(definition.inputs)) {
    const names = files[port.name] ?? [];
    inputs[ids.inputs[port.name]!] = port.maxitems > 1 ? names.map(file) : names[0] === undefined ? null : file(names[0]);
  }
  for (const name of Object.keys(definition.parameters)) inputs[ids.parameters[name]!] = values[name] ?? null;
  return inputs;
}

describe('CWL export: format terms', () => {
  it('gives EDAM terms to the formats EDAM has, compressed ones the term of their content, others gdflow terms', () => {
    assert.equal(formatTerm('fastq'), 'edam:format_1930');
    assert.equal(formatTerm('fq.gz'), 'edam:format_1930');
    assert.equal(formatTerm('BAM'), 'edam:format_2572');
    assert.equal(formatTerm('bai'), 'edam:format_3327');
    assert.equal(formatTerm('vcf.gz'), 'edam:format_3016');
    assert.equal(formatTerm('tgz'), 'gdflow:tgz');
    assert.equal(formatTerm('my format'), 'gdflow:my%20format');
    assert.equal(formatUri('edam:format_1930'), 'http://edamontology.org/format_1930');
    assert.equal(formatUri('gdflow:tgz'), 'https://gdflow.dev/formats#tgz');
  });
});

describe('CWL export: ids', () => {
  it('keeps every name, and gives a dotted id only to a name an input already has', () => {
    const definition = definitionOf({
      cmd_template: 'true',
      inputs: { bam: { type: 'file', formats: ['bam'], required: true }, reads: { type: 'file', maxitems: 4 } },
      outputs: { bam: { type: 'file', formats: 'bam' }, stats: { type: 'file', formats: 'txt', maxitems: 3 }, reads: { type: 'file' } },
      parameters: { reads: { type: 'string' }, threads: { type: 'integer', default: 2 } },
    });
    assert.deepEqual(toolIds(definition), {
      inputs: { bam: 'bam', reads: 'reads' },
      parameters: { reads: 'reads.parameter', threads: 'threads' },
      outputNames: { bam: 'bam.name', stats: 'stats.names', reads: 'reads.name' },
      outputs: { bam: 'bam.output', stats: 'stats', reads: 'reads.output' },
    });
  });
});

describe('CWL export: a tool document', () => {
  const definition = definitionOf({
    alias: 'counter',
    description: 'counts things',
    cmd_template: 'wc -l {{ inputs.reads | map(attribute="path") | join(" ") }} > {{ outputs.counts[0].path }} # {{ parameters.label }}',
    inputs: {
      reads: { type: 'file', formats: ['fastq', 'fq'], minitems: 1, maxitems: 5, required: true, hint: 'reads to count' },
      mask: { type: 'file', formats: ['bed'] },
    },
    outputs: { counts: { type: 'file', formats: 'txt', required: true } },
    parameters: {
      label: { type: 'string', default: 'x' },
      threads: { type: 'integer', default: '4', minvalue: 1, maxvalue: 64, hint: 'threads' },
      big: { type: 'integer' },
      ratio: { type: 'number', required: true },
      fast: { type: 'flag' },
    },
    requirements: { container: { image: 'quay.io/x/counter:1.0', type: 'docker' }, resources: { cpu: 4, mem: '3g', disk: '10g', network: true } },
  });
  let document: Json;
  before(async () => {
    document = await exportTool(sourceOf(definition, 'counter'), OPTIONS);
  });

  it('is a CWL v1.2 CommandLineTool whose command is one unquoted argument under ShellCommandRequirement', () => {
    assert.equal(document.cwlVersion, 'v1.2');
    assert.equal(document.class, 'CommandLineTool');
    assert.equal(document.label, 'counter');
    assert.match(document.doc, /^counts things\n\nExported by gdflow test from tool counter version 3 \(account alice, project default\)\.$/);
    assert.deepEqual(document.requirements.ShellCommandRequirement, {});
    assert.equal(document.arguments.length, 1);
    assert.equal(document.arguments[0].shellQuote, false);
    assert.match(document.arguments[0].valueFrom, /^\$\{\n {2}return gdflow\.command\(/);
    assert.ok(!('baseCommand' in document));
  });

  it('carries the renderer as ES5 in expressionLib, and the template as written', () => {
    const [lib] = document.requirements.InlineJavascriptRequirement.expressionLib;
    assert.match(lib, /^\/\* gdflow \S+: the command renderer/);
    assert.match(lib, /Includes @huggingface\/jinja, MIT License/);
    assert.doesNotMatch(lib, /=>|\blet |\bconst |\bclass /, 'no ES2015 syntax (cwltool lints expressionLib at esversion 5)');
    assert.ok(document.arguments[0].valueFrom.includes(JSON.stringify(definition.cmdTemplate)));
  });

  it('says the image, resources and network as requirements and hints', () => {
    assert.deepEqual(document.hints, { DockerRequirement: { dockerPull: 'quay.io/x/counter:1.0' } });
    assert.deepEqual(document.requirements.ResourceRequirement, { coresMin: 4, coresMax: 4, ramMin: 3072, ramMax: 3072, outdirMin: 10240, outdirMax: 10240 });
    assert.deepEqual(document.requirements.NetworkAccess, { networkAccess: true });
    assert.match(document.requirements.InitialWorkDirRequirement.listing[0], /return gdflow\.workDir\(/);
  });

  it('types files, parameters and output names, with formats and defaults', () => {
    assert.deepEqual(document.$namespaces, { edam: 'http://edamontology.org/' });
    assert.deepEqual(document.inputs.reads, { type: 'File[]', format: ['edam:format_1930'], doc: 'reads to count. 1 to 5 files.' });
    assert.deepEqual(document.inputs.mask, { type: 'File?', format: ['edam:format_3003'] });
    assert.deepEqual(document.inputs.label, { type: 'string?', default: 'x' });
    assert.deepEqual(document.inputs.threads, { type: 'int?', default: 4, doc: 'threads. gdflow checks that the value is from 1 to 64.' });
    assert.deepEqual(document.inputs.big, { type: 'long?' });
    assert.deepEqual(document.inputs.ratio, { type: 'double' });
    assert.deepEqual(document.inputs.fast, { type: 'boolean?', default: false });
    assert.equal(document.inputs['counts.name'].type, 'string?');
    assert.equal(document.outputs.counts.type, 'File');
    assert.equal(document.outputs.counts.format, 'edam:format_2330');
    assert.match(document.outputs.counts.outputBinding.glob, /return gdflow\.outputFiles\(/);
  });

  it('names and places the files as a gdflow job does', () => {
    const lib = document.requirements.InlineJavascriptRequirement.expressionLib;
    const inputs = { reads: [file('a.fq'), file('a.fq'), file('my reads$(x).fq')], mask: null, 'counts.name': '/results/sample 1.txt' };
    assert.deepEqual(evaluateExpression(lib, document.outputs.counts.outputBinding.glob, { inputs }), ['outputs/counts/sample_1.txt']);
    assert.deepEqual(evaluateExpression(lib, document.requirements.InitialWorkDirRequirement.listing[0], { inputs }), [
      { entry: file('a.fq'), entryname: 'inputs/reads/1_a.fq' },
      { entry: file('a.fq'), entryname: 'inputs/reads/2_a.fq' },
      { entry: file('my reads$(x).fq'), entryname: 'inputs/reads/my_reads__x_.fq' },
      { class: 'Directory', basename: 'outputs', listing: [{ class: 'Directory', basename: 'counts', listing: [] }] },
    ]);
    assert.deepEqual(evaluateExpression(lib, document.outputs.counts.outputBinding.glob, { inputs: { ...inputs, 'counts.name': null } }), [
      'outputs/counts/counts.txt',
    ]);
  });

  it('refuses in the expression what gdflow refuses: a value out of range, a missing required value, too many files', () => {
    const runtime = runtimeFor(definition, '/out');
    const inputs = { reads: [file('a.fq')], mask: null, label: 'x', threads: 4, big: null, ratio: 0.5, fast: false };
    assert.match(exportedCommand(document, inputs, runtime), /^wc -l \/out\/inputs\/reads\/a\.fq > \/out\/outputs\/counts\/counts\.txt # x$/);
    const refused = (values: Json) => evaluationError(() => exportedCommand(document, { ...inputs, ...values }, runtime));
    assert.equal(refused({ threads: 65 }), "input 'threads' of counter:3 is 65, above the maximum 64");
    assert.equal(refused({ ratio: null }), "input 'ratio' of counter:3 is required");
    assert.equal(refused({ reads: Array.from({ length: 6 }, (_, i) => file(`r${i}.fq`)) }), "input 'reads' of counter:3 has 6 files; at most 5 are allowed");
    assert.equal(refused({ label: 'a\u0000b' }), "input 'label' of counter:3 must not contain NUL or private-use characters");
  });

  it('connects the stdin input and the stdout output, and checks that a list output was written', async () => {
    const streams: Json = await exportTool(
      sourceOf(
        definitionOf({
          cmd_template: 'sort',
          inputs: { unsorted: { type: 'file', stdin: true, required: true } },
          outputs: { sorted: { type: 'file', formats: 'txt', stdout: true }, extra: { type: 'file', formats: 'txt', maxitems: 2, minitems: 2 } },
        }),
      ),
      OPTIONS,
    );
    const lib = streams.requirements.InlineJavascriptRequirement.expressionLib;
    const inputs = { unsorted: file('in.txt') };
    assert.equal(evaluateExpression(lib, streams.stdin, { inputs, runtime: { outdir: '/out' } }), '/out/inputs/unsorted/in.txt');
    assert.equal(evaluateExpression(lib, streams.stdout, { inputs }), 'outputs/sorted/sorted.txt');
    const collected = streams.outputs.extra.outputBinding.outputEval;
    const written = [
      { class: 'File', basename: 'extra.txt' },
      { class: 'File', basename: 'extra_2.txt' },
    ];
    assert.deepEqual(evaluateExpression(lib, collected, { inputs, self: written }), written);
    assert.equal(
      evaluationError(() => evaluateExpression(lib, collected, { inputs, self: written.slice(0, 1) })),
      'the command exited 0 but did not write outputs/extra/extra_2.txt',
    );
  });

  it('exports a version imported from CWL as the document it came from', async () => {
    const original = { class: 'CommandLineTool', baseCommand: 'echo', inputs: [], outputs: [] };
    assert.deepEqual(await exportTool({ cwlDocument: original }, OPTIONS), { cwlVersion: 'v1.2', ...original });
  });
});

describe("CWL export: the exported command is gdflow's", () => {
  const demo = ['fastp-tool.yml', 'bwa-mem-tool.yml', 'samtools-sort-index-tool.yml', 'samtools-flagstat-tool.yml'].map(demoTool);
  const fastqc = (() => {
    const { app } = parseYaml(readFileSync(fixturePath('fastqc-tool.yml'), 'utf8')) as { app: Record<string, unknown> };
    return readToolDefinition(app);
  })();
  /** Files for every input port: its `minitems` (at least one) copies of a sample name, with one hostile name. */
  const filesFor = (definition: ToolDefinition): Record<string, string[]> =>
    Object.fromEntries(
      Object.values(definition.inputs).map((p) => [
        p.name,
        Array.from({ length: Math.max(p.minitems, 1) + (p.maxitems > 1 ? 2 : 0) }, (_, i) => (i === 1 ? "it's $(x).fq" : `sample_${i}.fq`)),
      ]),
    );

  for (const outdir of [JOB_DIRECTORY, '/tmp/cwl job dir']) {
    it(`the demo tools and the fastqc fixture render the same command, in ${outdir}`, async () => {
      for (const definition of [...demo, fastqc]) {
        const files = filesFor(definition);
        const values = Object.fromEntries(Object.values(definition.parameters).map((p) => [p.name, p.default]));
        const document = await exportTool(sourceOf(definition), OPTIONS);
        const expected = gdflowCommand(definition, files, values, outdir);
        assert.equal(exportedCommand(document, cwlInputs(definition, files, values), runtimeFor(definition, outdir)), expected);
      }
    });
  }

  it('the injection corpus gives the same command in every shell context, or the same refusal', async () => {
    let compared = 0;
    let refused = 0;
    for (const template of [...EXACT_CONTEXTS.map((c) => c.template), ...RUN_ONLY_CONTEXTS]) {
      const definition = definitionOf({ cmd_template: template, parameters: { x: { type: 'string', default: 'x' } } });
      const document = await exportTool(sourceOf(definition), OPTIONS);
      for (const value of HOSTILE) {
        let expected: string;
        try {
          expected = gdflowCommand(definition, {}, { x: value });
        } catch (error) {
          assert.ok(error instanceof RenderError, String(error));
          assert.equal(
            evaluationError(() => exportedCommand(document, { x: value }, runtimeFor(definition, JOB_DIRECTORY))),
            error.message,
          );
          refused++;
          continue;
        }
        assert.equal(exportedCommand(document, { x: value }, runtimeFor(definition, JOB_DIRECTORY)), expected, `${template} with ${JSON.stringify(value)}`);
        compared++;
      }
    }
    assert.ok(compared > 1000 && refused > 50, `${compared} compared, ${refused} refused`);
  });

  it('every template construct gdflow takes renders the same: filters, tests, loops, macros, set, slices, the context', async () => {
    const definition = definitionOf({
      cmd_template: '',
      inputs: { reads: { type: 'file', formats: ['fq'], maxitems: 4, required: true }, ref: { type: 'file', formats: ['fa'] } },
      outputs: { out: { type: 'file', formats: 'bam' }, logs: { type: 'file', formats: 'txt', minitems: 2, maxitems: 2 } },
      parameters: {
        name: { type: 'string', default: 'My Sample' },
        n: { type: 'integer', default: 3 },
        ratio: { type: 'number', default: 0.25 },
        on: { type: 'flag', default: true },
        none: { type: 'string' },
      },
    });
    const templates = [
      '{% for r in inputs.reads %}{{ loop.index }}:{{ r.path }}{% if not loop.last %},{% endif %}{% endfor %}',
      "{{ inputs.reads | map(attribute='path') | join(' ') }} {{ inputs.reads | length }} {{ (inputs.reads | first).path }} {{ (inputs.reads | last).path }}",
      "{{ parameters.name | upper }} {{ parameters.name | lower }} {{ parameters.name | replace(' ', '_') }} {{ parameters.name | title }} {{ parameters.name[3:] }}",
      "{{ parameters.name.split(' ') | reverse | join('-') }} {{ parameters.name | length }} {{ parameters.name.startswith('My') }}",
      '{% macro opt(flag, value) %}--{{ flag }}={{ value }}{% endmacro %}{{ opt("name", parameters.name) }} {{ opt("n", parameters.n * 2) }}',
      '{% set prefix = parameters.name ~ ".sorted" %}{{ prefix }}.bam {{ prefix | tojson }}',
      '{% if parameters.n > 5 %}big{% elif parameters.n > 2 %}mid {{ parameters.n // 2 }} {{ parameters.n / 2 }}{% else %}small{% endif %}',
      "{{ parameters.ratio }} {{ parameters.ratio * 4 }} {{ parameters.n % 2 }} {{ -parameters.n | abs }} {{ parameters.ratio | int }} {{ '7' | int + 1 }}",
      "{{ parameters.on }} {{ 'yes' if parameters.on else 'no' }} {{ parameters.none is none }} {{ parameters.none | default('d', true) }}",
      '{{ requirements.resources.cpu }} {{ requirements.resources.mem }} {{ requirements.resources.disk }} {{ requirements.container.image }}',
      '{% for i in range(parameters.n) %}{{ i }}{% endfor %} {{ outputs.logs | map(attribute="path") | join(",") }} {{ outputs.out[0].path }}',
      "{% if inputs.ref %}-r {{ inputs.ref[0].path }}{% endif %} {{ ['b', 'a', 'b'] | unique | sort | join }} {{ {'k': parameters.n} | items | list }}",
      'cat <<EOF > /var/data/x.txt\n{{ parameters.name }}\nEOF\nsort -k1,1 /var/data/x.txt | {{ "awk \'{print $1}\'" }}',
    ];
    const files = { reads: ['a.fq', 'b c.fq', 'a.fq'], ref: ['ref.fa'] };
    for (const template of templates) {
      const t = { ...definition, cmdTemplate: template };
      for (const outdir of [JOB_DIRECTORY, '/tmp/w d']) {
        const expected = gdflowCommand(t, files, {}, outdir);
        assert.equal(exportedCommand(await exportTool(sourceOf(t), OPTIONS), cwlInputs(t, files, {}), runtimeFor(t, outdir)), expected, template);
      }
    }
  });

  it('an empty cmd_template is assembled from the definition as gdflow assembles it', async () => {
    const definition = definitionOf({
      cmd_template: '',
      inputs: { reads: { type: 'file', prefix: '-i', separator: ' ', maxitems: 3, item: { separator: ',' } } },
      outputs: { out: { type: 'file', formats: 'bam', prefix: '-o', separator: ' ' } },
      parameters: { fast: { type: 'flag', prefix: '--fast' }, threads: { type: 'integer', prefix: '--threads=', separator: '', default: 2 } },
    });
    const files = { reads: ['a b.fq', 'c.fq'] };
    const values = { fast: true, threads: 8 };
    const command = exportedCommand(await exportTool(sourceOf(definition), OPTIONS), cwlInputs(definition, files, values), runtimeFor(definition, '/var/data'));
    assert.equal(command, gdflowCommand(definition, files, values));
    assert.equal(command, '-i /var/data/inputs/reads/a_b.fq,/var/data/inputs/reads/c.fq --fast --threads=8 -o /var/data/outputs/out/out.bam');
  });
});

describe('render: the job directory elsewhere (workDir)', () => {
  const wrapped = (dir: string) => `${OPEN}${dir}${CLOSE}`;
  it("points the template's own /var/data paths at the directory, and nothing else", () => {
    assert.equal(
      relocateJobDirectory('cd /var/data && ls /var/data/x /var/database /srv/var/data', '/w'),
      `cd ${wrapped('/w')} && ls ${wrapped('/w')}/x /var/database /srv/var/data`,
    );
    assert.equal(relocateJobDirectory(`cat ${OPEN}/var/data/in${CLOSE}/var/data`, '/w'), `cat ${OPEN}/var/data/in${CLOSE}/var/data`);
    assert.equal(relocateJobDirectory("echo '/var/data/a'", '/w'), `echo '${wrapped('/w')}/a'`);
  });

  it('quotes the directory for the place it lands in', () => {
    const render = (template: string) =>
      renderCommand({ tool: definitionOf({ cmd_template: template }), inputs: {}, outputs: {}, parameters: {}, workDir: "/tmp/a b's" }).command;
    assert.equal(render('ls /var/data/x'), "ls '/tmp/a b'\\''s'/x");
    assert.equal(render('ls "/var/data/x"'), `ls "/tmp/a b's/x"`);
    assert.equal(render("ls '/var/data/x'"), "ls '/tmp/a b'\\''s/x'");
    assert.throws(() => render('echo $(( /var/data ))'), /the working directory is used inside shell arithmetic/);
  });
});

describe('CWL export: a workflow document', () => {
  const tools: Record<string, ResolvedTool> = Object.fromEntries(
    [
      ['fastp', 'fastp-tool.yml'],
      ['bwa_mem', 'bwa-mem-tool.yml'],
      ['samtools_sort_index', 'samtools-sort-index-tool.yml'],
      ['samtools_flagstat', 'samtools-flagstat-tool.yml'],
    ].map(([name, file], i) => [
      `/demo/${name}/1`,
      { id: `id${i}`, accountName: 'demo', projectName: 'default', name: name!, version: 1, definition: demoTool(file!) },
    ]),
  );
  const workflow = parseYaml(readFileSync(join(repoRoot(), 'examples', 'demo', 'align-workflow.yml'), 'utf8').replaceAll('{account}', 'demo')).workflow;
  const exported = (configs: Json, template = (t: Json) => t): Promise<Json> => {
    const graph = buildGraph(configs, (appId) => tools[appId]);
    return exportWorkflow(
      { account: 'demo', project: 'default', name: 'align', version: 2, description: 'align reads', graph, template: template(buildRunTemplate(graph)) },
      OPTIONS,
    );
  };

  it('makes loaddata nodes File inputs, storedata nodes outputs and tool nodes steps with their tools', async () => {
    const document = await exported({ nodelist: workflow.nodelist });
    assert.equal(document.class, 'Workflow');
    assert.deepEqual(document.inputs.load_read1, { type: 'File', label: 'first reads (R1)', format: ['edam:format_1930'] });
    assert.deepEqual(document.inputs.load_reference.format, ['edam:format_1929']);
    assert.deepEqual(document.outputs.store_bam, { type: 'File', outputSource: 'sort_index/bam', label: 'sorted BAM' });
    assert.deepEqual(document.outputs.store_flagstat.outputSource, 'flagstat/report');
    assert.deepEqual(Object.keys(document.steps), ['qc', 'align', 'sort_index', 'flagstat']);
    assert.deepEqual(document.steps.align.in, { reference: 'load_reference', reads1: 'qc/trimmed1', reads2: 'qc/trimmed2', read_group: 'align.read_group' });
    assert.deepEqual(document.steps.sort_index.out, ['bam', 'bai']);
    assert.equal(document.steps.qc.run.class, 'CommandLineTool');
  });

  it('carries the renderer once, which the steps inherit', async () => {
    const document = await exported({ nodelist: workflow.nodelist });
    assert.equal(document.requirements.InlineJavascriptRequirement.expressionLib.length, 1);
    for (const step of Object.values<Json>(document.steps)) assert.ok(!('InlineJavascriptRequirement' in step.run.requirements));
    assert.ok(!('MultipleInputFeatureRequirement' in document.requirements));
  });

  it("makes the task's choices inputs with the run template's defaults: variable parameters and the stored files' names", async () => {
    const document = await exported({ nodelist: workflow.nodelist }, (template) => {
      template.Outputs.store_bam.data[0].name = '/results/sample1.sorted.bam';
      return template;
    });
    assert.deepEqual(document.inputs['qc.qualified_quality'], {
      type: 'int?',
      default: 15,
      doc: 'a base is qualified at this Phred quality or above (-q). gdflow checks that the value is from 0 to 60.',
    });
    assert.equal(document.inputs['align.read_group'].default, '@RG\\tID:sample1\\tSM:sample1\\tPL:ILLUMINA');
    assert.equal(document.inputs['store_bam.name'].default, 'sample1.sorted.bam');
    assert.equal(document.inputs['store_bai.name'].default, 'store_bai.bai', 'gdflow names an unnamed stored item <node>.<format>');
    assert.equal(document.steps.sort_index.in['bam.name'], 'store_bam.name');
    assert.equal(document.steps.qc.in['trimmed1.name'], undefined, 'an output no store names keeps its default name');
  });

  it('fixes a parameter the workflow fixes as the step default', async () => {
    const nodelist = structuredClone(workflow.nodelist);
    nodelist.find((n: Json) => n.node_id === 'qc').parameters.qualified_quality = { value: 25, variable: false };
    const document = await exported({ nodelist });
    assert.deepEqual(document.steps.qc.in.qualified_quality, { default: 25 });
    assert.equal(document.inputs['qc.qualified_quality'], undefined);
  });

  it('merges several links into a list input', async () => {
    tools['/demo/cat/1'] = {
      id: 'cat',
      accountName: 'demo',
      projectName: 'default',
      name: 'cat',
      version: 1,
      definition: definitionOf({
        cmd_template: 'cat {{ inputs.parts | map(attribute="path") | join(" ") }} > {{ outputs.all[0].path }}',
        inputs: { parts: { type: 'file', formats: ['fastq'], maxitems: 2, required: true } },
        outputs: { all: { type: 'file', formats: 'fastq' } },
      }),
    };
    const document = await exported({
      nodelist: [
        { node_id: 'r1', app_id: 'loaddata', outputs: { data: { enid: 'a' } } },
        { node_id: 'r2', app_id: 'loaddata', outputs: { data: { enid: 'b' } } },
        { node_id: 'join', app_id: '/demo/cat/1', inputs: { parts: [{ enid: 'a' }, { enid: 'b' }] }, outputs: { all: [{ enid: 'c' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'c' } } },
      ],
    });
    assert.deepEqual(document.steps.join.in.parts, { source: ['r1', 'r2'], linkMerge: 'merge_flattened' });
    assert.deepEqual(document.requirements.MultipleInputFeatureRequirement, {});
  });

  it("loads in gdflow's own CWL front end without an error or a warning, as the tools do", async () => {
    const documents: Record<string, Json> = { 'align.cwl': await exported({ nodelist: workflow.nodelist }) };
    for (const t of Object.values(tools)) documents[`${t.name}.cwl`] = await exportTool(sourceOf(t.definition, t.name), OPTIONS);
    for (const [name, document] of Object.entries(documents)) {
      const uri = `file:///w/${name}`;
      const { process, warnings } = await loadDocument(uri, new InMemoryDocumentSource([[uri, JSON.stringify(document)]]));
      assert.equal(process.class, document.class, name);
      assert.deepEqual(warnings, [], name);
    }
  });

  it('refuses, naming the node and input, a list output feeding an input of one file', async () => {
    tools['/demo/split/1'] = {
      id: 'split',
      accountName: 'demo',
      projectName: 'default',
      name: 'split',
      version: 1,
      definition: definitionOf({ cmd_template: 'true', outputs: { parts: { type: 'file', formats: 'bam', maxitems: 4 } } }),
    };
    const configs = {
      nodelist: [
        { node_id: 'split', app_id: '/demo/split/1', outputs: { parts: [{ enid: 'p' }] } },
        { node_id: 'stats', app_id: '/demo/samtools_flagstat/1', inputs: { bam: [{ enid: 'p' }] }, outputs: { report: [{ enid: 'r' }] } },
        { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'r' } } },
      ],
    };
    await assert.rejects(exported(configs), (error: unknown) => {
      assert.ok(error instanceof InvalidInput);
      assert.equal(error.reason, "node 'stats': input 'bam' takes one file, but split.parts, which feeds it, may hold several; CWL needs a list there");
      return true;
    });
  });
});
