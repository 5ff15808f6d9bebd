/**
 * CWL export end to end (docs/cwl.md, "Export"): the demo's tools and workflow registered on a real server, exported
 * with the CLI, validated by cwltool, and the workflow run by cwltool --no-container on the demo's sample, whose
 * outputs are compared byte for byte with those of gdflow's own run of the same workflow; and the injection corpus
 * through cwltool, where each exported command must be gdflow's, or refused as gdflow refuses it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify as stringifyYaml } from 'yaml';
import { DEMO_TOOLS, toolDocument, workflowDocument } from '../../src/demo/documents.js';
import { demoSample } from '../../src/demo/sample.js';
import { formatUri } from '../../src/domain/cwl/export/index.js';
import { RenderError, renderCommand } from '../../src/domain/render/index.js';
import { readToolDefinition } from '../../src/domain/tools/definition.js';
import { coerceParameter } from '../../src/domain/tools/parameter-values.js';
import { cliFixture, type CliFixture } from '../cli/support.js';
import { headerText, shiftBai, splitBam } from '../helpers/bam-files.js';
import { skipWithout } from '../helpers/components.js';
import { cwltool, cwltoolUnavailable } from '../helpers/cwltool.js';
import { EXACT_CONTEXTS, HOSTILE, RUN_ONLY_CONTEXTS } from '../helpers/shell-contexts.js';
import { createWorkflow, pipelineConfigs, registerPipeline } from '../helpers/workflows.js';

type Json = any;

const skip = skipWithout(cwltoolUnavailable());

let f: CliFixture;
before(async () => {
  if (skip) return;
  f = await cliFixture();
});
after(async () => f?.close());

/** Every warning or lint message cwltool printed (it prints INFO lines besides). */
const complaints = (stderr: string): string[] => stderr.split('\n').filter((line) => /WARNING|JSHINT|ERROR/.test(line));

/** The outputs the demo stores, by store node, as the demo names them. */
const STORED = {
  store_bam: 'sample1.sorted.bam',
  store_bai: 'sample1.sorted.bam.bai',
  store_flagstat: 'sample1.flagstat.txt',
  store_fastp: 'sample1.fastp.json',
};

describe('CWL export of the demo pipeline through the server, the CLI and cwltool', { skip, timeout: 600_000 }, () => {
  const gdflowOutputs: Record<string, Buffer> = {};

  before(async () => {
    if (skip) return;
    for (const name of DEMO_TOOLS) await f.client.registerTool(toolDocument(name));
    const workflow = workflowDocument(f.account.name);
    await f.client.registerWorkflow(workflow.name, { nodelist: workflow.nodelist } as never, { description: workflow.description });

    // The demo's sample, uploaded for gdflow and written here for cwltool; gdflow's run names its outputs as the demo does.
    const { reference, r1, r2 } = demoSample(2000);
    const sample = { 'ref.fa': Buffer.from(reference), 'sample1_R1.fq': r1, 'sample1_R2.fq': r2 };
    for (const [name, content] of Object.entries(sample)) {
      writeFileSync(join(f.dir, name), content);
      await f.client.putData(`/demo/input/${name}`, content);
    }
    const { parameter } = await f.client.getExecutableWorkflow('align_paired', 1);
    const run: Json = parameter;
    run.Inputs.load_read1.data[0].name = '/demo/input/sample1_R1.fq';
    run.Inputs.load_read2.data[0].name = '/demo/input/sample1_R2.fq';
    run.Inputs.load_reference.data[0].name = '/demo/input/ref.fa';
    for (const [node, file] of Object.entries(STORED)) run.Outputs[node].data[0].name = `/demo/results/${file}`;
    const { task_id } = await f.client.activateWorkflow({ workflow_name: 'align_paired', workflow_version: 1, parameters: run });
    const task = await f.client.waitForTask(task_id, { intervalMs: 200, timeoutMs: 240_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    for (const file of Object.values(STORED)) gdflowOutputs[file] = await f.client.readData(`/demo/results/${file}`);
  });

  it('exports every demo tool and the workflow with gdflow cwl export, and cwltool validates each without a warning', async () => {
    for (const target of [...DEMO_TOOLS.map((name) => `tool ${name}:1`), 'workflow align_paired']) {
      const [kind, name] = target.split(' ') as [string, string];
      const path = join(f.dir, `${name.replace(':1', '')}.cwl`);
      const exported = await f.run(['cwl', 'export', kind, name, '-o', path]);
      assert.equal(exported.status, 0, exported.stderr);
      assert.match(readFileSync(path, 'utf8'), /^#!\/usr\/bin\/env cwl-runner\ncwlVersion: v1\.2\n/);
      const validated = await cwltool(['--validate', path], { cwd: f.dir });
      assert.equal(validated.status, 0, `${target}: ${validated.stdout}${validated.stderr}`);
      assert.match(validated.stdout + validated.stderr, /is valid CWL/);
      assert.deepEqual(complaints(validated.stderr), [], `${target}: cwltool complained`);
    }
  });

  it('prints as JSON the document the API answers', async () => {
    const printed = await f.run(['cwl', 'export', 'tool', 'fastp', '--json']);
    assert.equal(printed.status, 0, printed.stderr);
    assert.deepEqual(printed.json(), await f.client.exportToolCwl('fastp', 1));
    assert.equal(printed.json().class, 'CommandLineTool');
  });

  it('says which version does not exist, and what can be exported', async () => {
    const missing = await f.run(['cwl', 'export', 'tool', 'fastp:7']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /fastp.*version 7 does not exist/);
    const wrongKind = await f.run(['cwl', 'export', 'task', 'fastp']);
    assert.equal(wrongKind.status, 2);
    assert.match(wrongKind.stderr, /what to export is 'tool' or 'workflow', not 'task'/);
  });

  it("runs the exported workflow under cwltool --no-container to gdflow's outputs, byte for byte but the job's directory", async () => {
    const document = join(f.dir, 'align_paired-run.cwl');
    const exported = await f.run(['cwl', 'export', 'workflow', 'align_paired', '-o', document]);
    assert.equal(exported.status, 0, exported.stderr);
    const fastq = formatUri('edam:format_1930');
    const job = {
      load_read1: { class: 'File', path: 'sample1_R1.fq', format: fastq },
      load_read2: { class: 'File', path: 'sample1_R2.fq', format: fastq },
      load_reference: { class: 'File', path: 'ref.fa', format: formatUri('edam:format_1929') },
      ...Object.fromEntries(Object.entries(STORED).map(([node, file]) => [`${node}.name`, file])),
    };
    writeFileSync(join(f.dir, 'job.yml'), stringifyYaml(job));
    const jobDirectory = join(f.dir, 'cwljob-');
    const ran = await cwltool(['--no-container', '--outdir', 'cwl-out', '--tmp-outdir-prefix', jobDirectory, document, 'job.yml'], { cwd: f.dir });
    assert.equal(ran.status, 0, ran.stderr);
    assert.deepEqual(complaints(ran.stderr), []);
    const produced = JSON.parse(ran.stdout) as Record<string, { basename: string }>;
    assert.deepEqual(Object.fromEntries(Object.entries(produced).map(([id, file]) => [id, file.basename])), STORED);
    const cwlOutput = (file: string): Buffer => readFileSync(join(f.dir, 'cwl-out', file));

    // The tools write their command lines into their outputs: with the job's directory, where gdflow's job has /var/data.
    const jobs = new RegExp(`${jobDirectory.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[a-z0-9_]+`, 'g');
    const asGdflow = (text: string): string => text.replace(jobs, '/var/data');

    assert.ok(cwlOutput(STORED.store_flagstat).equals(gdflowOutputs[STORED.store_flagstat]!), 'flagstat: the same bytes');

    const fastp = cwlOutput(STORED.store_fastp).toString('utf8');
    assert.match(fastp, /"command": "fastp -i \S+\/inputs\/read1\/sample1_R1\.fq /);
    assert.equal(asGdflow(fastp), gdflowOutputs[STORED.store_fastp]!.toString('utf8'), 'fastp report: the same bytes but the job directory in its "command"');

    const gdflowBam = splitBam(gdflowOutputs[STORED.store_bam]!);
    const cwlBam = splitBam(cwlOutput(STORED.store_bam));
    assert.ok(cwlBam.body.equals(gdflowBam.body), 'BAM: the same alignment blocks, byte for byte');
    assert.equal(asGdflow(headerText(cwlBam.header)), headerText(gdflowBam.header), 'BAM: the same header but the job directory in its @PG command lines');
    assert.match(headerText(gdflowBam.header), /@PG\tID:bwa\t.*CL:bwa mem -t 2 -R .* \/var\/data\/ref\.fa \/var\/data\/inputs\/reads1\/trimmed1\.fastq/);

    const shift = gdflowBam.headerBytes - cwlBam.headerBytes;
    assert.ok(
      shiftBai(cwlOutput(STORED.store_bai), shift).equals(gdflowOutputs[STORED.store_bai]!),
      'BAI: the same index, its offsets moved by the difference in header length',
    );
  });
});

describe('CWL export of a workflow with a fan-out and a list input, run with the defaults of its run template', { skip, timeout: 300_000 }, () => {
  it('gives the stored files the names gdflow gives them, and the same contents', async () => {
    const ids = await registerPipeline(f.account);
    await createWorkflow(f.account, 'pipeline', pipelineConfigs(ids));
    const files = { 'reads.fq': '@r1\nACGT\n+\nIIII\n', 'ref.fa': '>chr1\nACGTACGT\n' };
    for (const [name, content] of Object.entries(files)) {
      writeFileSync(join(f.dir, name), content);
      await f.client.putData(`/pipeline/${name}`, Buffer.from(content));
    }

    // gdflow's run: the run template's defaults, so store_bam gets a generated name and store_report its workflow's.
    const { parameter } = await f.client.getExecutableWorkflow('pipeline', 1);
    const run: Json = parameter;
    run.Inputs.load_reads.data[0].name = '/pipeline/reads.fq';
    run.Inputs.load_ref.data[0].name = '/pipeline/ref.fa';
    const { task_id, task_name } = await f.client.activateWorkflow({ workflow_name: 'pipeline', workflow_version: 1, parameters: run });
    const task = await f.client.waitForTask(task_id, { intervalMs: 200, timeoutMs: 120_000 });
    assert.equal(task.status, 'succeeded', task.reason);
    const stored = (await f.client.listData('/home/')).items
      .map((item) => item.name.slice(item.name.indexOf(':') + 1))
      .filter((name) => name.includes(`/${task_name}/`));
    assert.deepEqual(
      stored.map((name) => name.slice(name.lastIndexOf('/') + 1)),
      ['store_bam.bam'],
    );
    const gdflowBam = await f.client.readData(stored[0]!);
    const gdflowReport = (await f.client.readData('/results/report.txt')).toString('utf8');

    const document = join(f.dir, 'pipeline.cwl');
    const exported = await f.run(['cwl', 'export', 'workflow', 'pipeline', '-o', document]);
    assert.equal(exported.status, 0, exported.stderr);
    const validated = await cwltool(['--validate', document], { cwd: f.dir });
    assert.equal(validated.status, 0, validated.stderr);
    assert.deepEqual(complaints(validated.stderr), []);
    const job = {
      load_reads: { class: 'File', path: 'reads.fq', format: formatUri('edam:format_1930') },
      load_ref: { class: 'File', path: 'ref.fa', format: formatUri('edam:format_1929') },
    };
    writeFileSync(join(f.dir, 'pipeline-job.json'), JSON.stringify(job));
    const jobDirectory = join(f.dir, 'pipejob-');
    const ran = await cwltool(['--no-container', '--outdir', 'pipeline-out', '--tmp-outdir-prefix', jobDirectory, document, 'pipeline-job.json'], {
      cwd: f.dir,
    });
    assert.equal(ran.status, 0, ran.stderr);
    const produced = JSON.parse(ran.stdout) as Record<string, { basename: string; path: string }>;
    assert.equal(produced.store_bam!.basename, 'store_bam.bam');
    assert.equal(produced.store_report!.basename, 'report.txt');
    assert.ok(readFileSync(produced.store_bam!.path).equals(gdflowBam), 'the same bytes');
    // wc -c names the file it counted: in the job's directory, where gdflow's job has /var/data.
    assert.equal(readFileSync(produced.store_report!.path, 'utf8').replace(new RegExp(`${jobDirectory}[a-z0-9_]+`), '/var/data'), gdflowReport);
    assert.match(gdflowReport, /^\d+ \/var\/data\/inputs\/bam\/store_bam\.bam\n$/);
  });
});

/** An exported tool turned into one that prints its command instead of running it, with gdflow's refusal as text. */
function echoingStep(document: Json): Json {
  const { cwlVersion: _version, $namespaces: _namespaces, ...tool } = document;
  const body = (tool.arguments[0].valueFrom as string).trim().slice(2, -1);
  delete tool.requirements.InlineJavascriptRequirement;
  delete tool.requirements.ShellCommandRequirement;
  tool.arguments = ['printf', '%s', { valueFrom: `\${ try {${body}} catch (e) { return "REFUSED: " + e.message; } }` }];
  tool.stdout = 'command.txt';
  tool.outputs = { command: { type: 'string', outputBinding: { glob: 'command.txt', loadContents: true, outputEval: '$(self[0].contents)' } } };
  return { run: tool, scatter: 'x', in: { x: 'values' }, out: ['command'] };
}

/** The corpus asks the server only for its documents: the store plays no part, so the PostgreSQL pass (npm run test:postgres) need not repeat its minute. */
const storeless =
  process.env.GDFLOW_TEST_STORE === 'postgres' ? 'the injection corpus runs once, in the SQLite pass: the store plays no part in it' : undefined;

describe(
  'the injection corpus through cwltool: the exported command is gdflow’s, or refused as gdflow refuses it',
  { skip: skip ?? storeless, timeout: 600_000 },
  () => {
    it('an exported tool, as exported, passes a hostile value as one argument, and fails its step where gdflow refuses', async () => {
      const definition = {
        cmd_template: "printf '<%s>' {{ parameters.x }} > {{ outputs.out[0].path }}; echo $(( {{ parameters.n }} + 1 )) >> {{ outputs.out[0].path }}",
        outputs: { out: { type: 'file', formats: 'txt' } },
        parameters: { x: { type: 'string', default: 'x' }, n: { type: 'string', default: '1' } },
        requirements: { container: { image: 'debian:bookworm', type: 'docker' } },
      };
      await f.client.registerTool(definition, { name: 'printer' });
      const exported = await f.run(['cwl', 'export', 'tool', 'printer', '-o', 'printer.cwl']);
      assert.equal(exported.status, 0, exported.stderr);
      const value = "'$(touch PWNED)`id`; touch PWNED";
      writeFileSync(join(f.dir, 'printer-job.json'), JSON.stringify({ x: value, n: '41' }));
      const ran = await cwltool(['--no-container', '--outdir', 'printer-out', 'printer.cwl', 'printer-job.json'], { cwd: f.dir });
      assert.equal(ran.status, 0, ran.stderr);
      assert.equal(readFileSync(join(f.dir, 'printer-out', 'out.txt'), 'utf8'), `<${value}>42\n`);

      writeFileSync(join(f.dir, 'printer-job.json'), JSON.stringify({ x: 'a', n: '1; touch PWNED' }));
      const refused = await cwltool(['--no-container', '--outdir', 'printer-out', 'printer.cwl', 'printer-job.json'], { cwd: f.dir });
      assert.notEqual(refused.status, 0);
      assert.match(refused.stderr, /parameters\.n is used inside shell arithmetic, where only an integer is safe/);
    });

    it('every shell context of the renderer tests, with every hostile value', async () => {
      const templates = [...EXACT_CONTEXTS.map((c) => c.template), ...RUN_ONLY_CONTEXTS];
      const steps: Json = {};
      let library: string[] = [];
      for (const [i, template] of templates.entries()) {
        const definition = {
          cmd_template: template,
          parameters: { x: { type: 'string', default: 'x' } },
          requirements: { container: { image: 'debian:bookworm', type: 'docker' } },
        };
        await f.client.registerTool(definition, { name: `context${i}` });
        const document: Json = await f.client.exportToolCwl(`context${i}`, 1);
        library = document.requirements.InlineJavascriptRequirement.expressionLib;
        steps[`context${i}`] = echoingStep(document);
      }
      const workflow = {
        cwlVersion: 'v1.2',
        class: 'Workflow',
        requirements: { InlineJavascriptRequirement: { expressionLib: library }, ScatterFeatureRequirement: {} },
        inputs: { values: 'string[]' },
        outputs: Object.fromEntries(Object.keys(steps).map((id) => [id, { type: 'string[]', outputSource: `${id}/command` }])),
        steps,
      };
      writeFileSync(join(f.dir, 'contexts.cwl'), JSON.stringify(workflow));
      writeFileSync(join(f.dir, 'values.json'), JSON.stringify({ values: HOSTILE }));
      const ran = await cwltool(['--no-container', '--outdir', 'contexts-out', 'contexts.cwl', 'values.json'], { cwd: f.dir, timeoutMs: 500_000 });
      assert.equal(ran.status, 0, ran.stderr.slice(-5000));
      const printed = JSON.parse(ran.stdout) as Record<string, string[]>;

      let same = 0;
      let refused = 0;
      for (const [i, template] of templates.entries()) {
        const definition = readToolDefinition({ cmd_template: template, parameters: { x: { type: 'string', default: 'x' } } });
        for (const [j, value] of HOSTILE.entries()) {
          // What gdflow's activation makes of the task's value and renders into the job's command.
          let expected: string;
          try {
            const x = coerceParameter(definition.parameters.x!, value, 'x');
            expected = renderCommand({ tool: definition, inputs: {}, outputs: {}, parameters: { x } }).command;
            same++;
          } catch (error) {
            assert.ok(error instanceof RenderError, String(error));
            expected = `REFUSED: ${error.message}`;
            refused++;
          }
          assert.equal(printed[`context${i}`]![j], expected, `${template} with ${JSON.stringify(value)}`);
        }
      }
      assert.equal(same + refused, templates.length * HOSTILE.length);
      assert.ok(refused > 0 && same > refused, `${same} commands, ${refused} refusals`);
    });
  },
);
