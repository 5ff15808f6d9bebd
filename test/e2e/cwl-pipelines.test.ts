/**
 * A bioinformatics pipeline written in CWL as the field writes it (test/fixtures/cwl/align-paired/: fastp, bwa index,
 * bwa mem, samtools sort, index and flagstat, one file a tool, biocontainers' images as DockerRequirement hints) run
 * end to end on the demo's sample (src/demo): with `gdflow cwl run` against a server on bwrap (the host's Debian
 * tools) and on podman (the demo image, tagged with the biocontainers names the documents give: nothing can be pulled
 * here), and imported with `gdflow cwl import` then started with ActivateWorkflow from its GeneDock run template.
 * Every run's outputs are checked by content with samtools: a valid sorted BAM with its read group and a usable
 * index, a flagstat report that is samtools' own for that BAM and counts every read fastp kept, and the same
 * alignments, record for record, whichever way the pipeline ran.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify as stringifyYaml } from 'yaml';
import { demoSample } from '../../src/demo/sample.js';
import { cliFixture, type CliFixture } from '../cli/support.js';
import { skipWithout } from '../helpers/components.js';
import { demoImageUnavailable, gdflowContainers, tagDemoImageAs } from '../helpers/containers.js';
import { fixturePath } from '../helpers/paths.js';
import { flagstatCounts, hostToolsMissing, samtools } from '../helpers/pipeline-checks.js';

const PIPELINE = fixturePath('cwl/align-paired/align-paired.cwl');
/** The images the pipeline's documents name, which the podman variant finds as tags of the demo image. */
const IMAGES = [
  'quay.io/biocontainers/fastp:0.23.2--hb7a2d85_2',
  'quay.io/biocontainers/bwa:0.7.17--he4a0461_11',
  'quay.io/biocontainers/samtools:1.16.1--h6899075_1',
];
const FASTQ = 'http://edamontology.org/format_1930';
const READ_PAIRS = 2000;

/**
 * The pipeline's outputs in `dir` checked by content; the alignment records (no header: its @PG lines name the
 * run's paths) for comparing runs.
 */
function checkOutputs(dir: string, sample: string): string {
  const bam = join(dir, `${sample}.sorted.bam`);
  samtools(['quickcheck', '-v', bam]);
  const header = samtools(['view', '-H', bam]);
  assert.match(header, /^@HD\t.*SO:coordinate/m, 'sorted by coordinate');
  assert.match(header, new RegExp(`^@RG\\tID:${sample}\\tSM:${sample}\\tPL:ILLUMINA$`, 'm'), "bwa mem's read group");
  assert.match(header, /^@SQ\tSN:chr1\tLN:20000$/m);
  const report = readFileSync(join(dir, `${sample}.flagstat.txt`), 'utf8');
  assert.equal(report, samtools(['flagstat', bam]), "the flagstat report is samtools' own for the BAM");
  const counts = flagstatCounts(report);
  const fastp = JSON.parse(readFileSync(join(dir, `${sample}.fastp.json`), 'utf8')) as {
    summary: { before_filtering: { total_reads: number }; after_filtering: { total_reads: number } };
  };
  assert.equal(fastp.summary.before_filtering.total_reads, 2 * READ_PAIRS, 'fastp read every read of the sample');
  assert.equal(counts.primary, fastp.summary.after_filtering.total_reads, 'every read fastp kept is aligned or listed unmapped');
  assert.ok(counts['primary mapped']! >= 0.95 * counts.primary, `reads simulated from the reference map: ${report}`);
  assert.ok(counts['properly paired']! >= 0.9 * counts['paired in sequencing']!, `pairs are proper: ${report}`);
  // The index is the BAM's: a region query through it finds the reads that idxstats counts on chr1.
  const [chr1] = samtools(['idxstats', bam]).split('\n');
  assert.equal(Number(chr1!.split('\t')[2]), counts['primary mapped']);
  assert.equal(Number(samtools(['view', '-c', '-F', '0x904', bam, 'chr1:1-20000']).trim()), counts['primary mapped']);
  assert.match(readFileSync(join(dir, `${sample}.fastp.html`), 'utf8'), /<html/i);
  return samtools(['view', bam]);
}

const skipAll = skipWithout(hostToolsMissing());

describe('a fastp -> bwa -> samtools CWL workflow of several files', { skip: skipAll, timeout: 600_000 }, () => {
  const records = new Map<string, string>();
  let samples: string;

  before(() => {
    const { reference, r1, r2 } = demoSample(READ_PAIRS);
    samples = join(process.env.TMPDIR ?? '/tmp', `gdflow-cwl-pipelines-${process.pid}`);
    mkdirSync(samples, { recursive: true });
    writeFileSync(join(samples, 'ref.fa'), reference);
    writeFileSync(join(samples, 'sample1_R1.fq'), r1);
    writeFileSync(join(samples, 'sample1_R2.fq'), r2);
    const job = {
      reads_1: { class: 'File', path: 'sample1_R1.fq', format: FASTQ },
      reads_2: { class: 'File', path: 'sample1_R2.fq', format: FASTQ },
      reference: { class: 'File', path: 'ref.fa', format: 'http://edamontology.org/format_1929' },
      sample: 'sample1',
    };
    writeFileSync(join(samples, 'job.yml'), stringifyYaml(job));
  });
  after(() => spawnSync('rm', ['-rf', samples]));

  /** `gdflow cwl run` against `f`'s server: the outputs in --outdir, checked. */
  async function cwlRun(f: CliFixture, label: string): Promise<string> {
    const outdir = join(f.dir, 'out');
    const ran = await f.run(['cwl', 'run', '--outdir', outdir, PIPELINE, join(samples, 'job.yml')], { timeoutMs: 300_000 });
    assert.equal(ran.status, 0, ran.stderr);
    const outputs = ran.json();
    assert.deepEqual(Object.keys(outputs).sort(), ['bam', 'fastp_html', 'fastp_json', 'flagstat_report']);
    assert.equal(outputs.bam.path, join(outdir, 'sample1.sorted.bam'));
    assert.equal(outputs.bam.format, 'http://edamontology.org/format_2572');
    assert.deepEqual(
      outputs.bam.secondaryFiles.map((file: { basename: string }) => file.basename),
      ['sample1.sorted.bam.bai'],
    );
    assert.match(outputs.flagstat_report.checksum, /^sha1\$[0-9a-f]{40}$/);
    records.set(label, checkOutputs(outdir, 'sample1'));
    // Each step was a job of the task, the index of the reference beside the trimming (both need only inputs).
    const [task] = (await f.client.listTasks({})).task_list;
    const { jobs } = await f.client.listJobs(task!.task_id);
    const steps = jobs.map((job) => [job.node_id, job.status]).sort();
    assert.deepEqual(steps, [
      ['main', 'succeeded'],
      ['main.align', 'succeeded'],
      ['main.flagstat', 'succeeded'],
      ['main.index_bam', 'succeeded'],
      ['main.index_reference', 'succeeded'],
      ['main.sort', 'succeeded'],
      ['main.trim', 'succeeded'],
    ]);
    return task!.task_id;
  }

  describe('on bwrap', () => {
    let f: CliFixture;
    before(async () => {
      f = await cliFixture({ executor: 'bwrap' });
    });
    after(async () => f?.close());

    it('gdflow cwl run: the host tools in the sandbox, the outputs checked by content', async () => {
      await cwlRun(f, 'cwl run on bwrap');
    });

    it('gdflow cwl import, then ActivateWorkflow with the GeneDock run template filled', async () => {
      const imported = await f.run(['cwl', 'import', PIPELINE, '--json']);
      assert.equal(imported.status, 0, imported.stderr);
      const names = imported.json().imported.map((i: { kind: string; name: string }) => `${i.kind} ${i.name}`);
      const tools = ['bwa-index', 'bwa-mem', 'fastp', 'samtools-flagstat', 'samtools-index', 'samtools-sort'];
      assert.deepEqual(names.sort(), [...tools.map((tool) => `tool ${tool}`), 'workflow align-paired']);

      for (const name of ['sample1_R1.fq', 'sample1_R2.fq', 'ref.fa']) await f.client.putData(`/samples/${name}`, readFileSync(join(samples, name)));
      const { parameter } = await f.client.getExecutableWorkflow('align-paired', 1);
      const template: any = parameter;
      assert.deepEqual(Object.keys(template.Inputs).sort(), ['reads_1', 'reads_2', 'reference']);
      assert.deepEqual(template.Inputs.reads_1.formats, ['fastq']);
      template.Inputs.reads_1.data[0].name = '/samples/sample1_R1.fq';
      template.Inputs.reads_2.data[0].name = '/samples/sample1_R2.fq';
      template.Inputs.reference.data[0].name = '/samples/ref.fa';
      assert.equal(template.Parameters.inputs.parameters.sample.value, 'sample');
      template.Parameters.inputs.parameters.sample.value = 'sample1';
      const { task_id } = await f.client.activateWorkflow({ workflow_name: 'align-paired', workflow_version: 1, parameters: template });
      const task = await f.client.waitForTask(task_id, { intervalMs: 200, timeoutMs: 300_000 });
      assert.equal(task.status, 'succeeded', task.reason);

      const outdir = join(f.dir, 'activated');
      mkdirSync(outdir);
      for (const name of ['sample1.sorted.bam', 'sample1.sorted.bam.bai', 'sample1.flagstat.txt', 'sample1.fastp.json', 'sample1.fastp.html']) {
        writeFileSync(join(outdir, name), await f.client.readData(`/cwl/runs/${task_id}/${name}`));
      }
      records.set('import and ActivateWorkflow on bwrap', checkOutputs(outdir, 'sample1'));
    });
  });

  describe('on podman', { skip: skipWithout(demoImageUnavailable('podman')) }, () => {
    let f: CliFixture;
    before(async () => {
      tagDemoImageAs('podman', IMAGES);
      f = await cliFixture({ executor: 'podman', pullPolicy: 'never' });
    });
    after(async () => f?.close());

    it("gdflow cwl run: each step in its DockerRequirement's image, the outputs checked by content", async () => {
      const taskId = await cwlRun(f, 'cwl run on podman');
      const { jobs } = await f.client.listJobs(taskId);
      for (const job of jobs.filter((j) => j.node_id !== 'main')) {
        assert.match(job.image_digest ?? '', /^sha256:[0-9a-f]{64}$/, `${job.node_id} ran in an image`);
        assert.deepEqual(gdflowContainers('podman', job.job_id), [], `${job.node_id}: its container is gone`);
      }
    });
  });

  it('gives the same alignments, record for record, however it ran', () => {
    const [first, ...others] = [...records.entries()];
    assert.ok(first && others.length >= 1, `runs to compare: ${[...records.keys()].join(', ')}`);
    assert.ok(first[1].split('\n').length > 3000);
    for (const [label, text] of others) assert.ok(text === first[1], `${label}: the same records as ${first[0]}`);
  });
});
