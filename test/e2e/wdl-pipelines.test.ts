/**
 * A bioinformatics pipeline written in WDL 1.0 as the field writes it (test/fixtures/wdl/align-samples/: fastp, bwa
 * index, bwa mem, samtools sort, index and flagstat, the tasks in an imported file with biocontainers' images as their
 * `runtime { docker }`, a struct of File inputs per sample, a scatter over three paired-end samples, a glob output) run
 * end to end on samples simulated as the demo's are (src/demo/sample.ts): through GeneDock's wdl/ routes as gwc runs
 * it (the workflow created from a multipart form with its imports zip, a wdl/tasks/ task, its jobs read back) and with
 * `gdflow wdl run` (local inputs uploaded, outputs downloaded into --outdir), each with the host sandbox (bwrap: the host's Debian tools) and with podman (the demo image, tagged with the biocontainers
 * names the tasks give: nothing can be pulled here). Every sample's outputs are checked by content with samtools: a
 * valid sorted BAM with its read group and a usable index, a flagstat report that is samtools' own for that BAM and
 * counts every read fastp kept, and the same alignments, record for record, whichever way the pipeline ran.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { demoSample } from '../../src/demo/sample.js';
import { skipWithout } from '../helpers/components.js';
import { demoImageUnavailable, gdflowContainers, tagDemoImageAs } from '../helpers/containers.js';
import { fixturePath } from '../helpers/paths.js';
import { flagstatCounts, hostToolsMissing, samtools } from '../helpers/pipeline-checks.js';
import type { TestAccount, TestServer } from '../helpers/server.js';
import { cliFixture, type CliFixture } from '../cli/support.js';
import { waitForTask } from '../helpers/tasks.js';
import { gdpy, gwcForm, sendForm, zipOf } from '../helpers/wdl.js';

const PIPELINE = fixturePath('wdl/align-samples');
const TASKS = 'tasks/align.wdl';
/** The images the tasks name, which the podman variant finds as tags of the demo image. */
const IMAGES = [
  'quay.io/biocontainers/fastp:0.23.2--hb7a2d85_2',
  'quay.io/biocontainers/bwa:0.7.17--he4a0461_11',
  'quay.io/biocontainers/samtools:1.16.1--h6899075_1',
];
/** Three samples of different sizes, so that a report checked against the wrong sample's counts fails. */
const SAMPLES = [
  { name: 'sampleA', pairs: 600 },
  { name: 'sampleB', pairs: 900 },
  { name: 'sampleC', pairs: 1200 },
];
/** The scattered calls, one job per sample each, and the calls made once. */
const SCATTERED = ['fastp', 'bwa_mem', 'sort', 'index_bam', 'flagstat'];

/** One sample's outputs, as local files. */
interface SampleFiles {
  bam: string;
  bai: string;
  flagstat: string;
  fastpJson: string;
  fastpHtml: string;
}

/** A sample's outputs checked by content; its alignment records (no header: @PG lines name the run's paths). */
function checkSample(files: SampleFiles, sample: { name: string; pairs: number }): string {
  samtools(['quickcheck', '-v', files.bam]);
  const header = samtools(['view', '-H', files.bam]);
  assert.match(header, /^@HD\t.*SO:coordinate/m, 'sorted by coordinate');
  assert.match(header, new RegExp(`^@RG\\tID:${sample.name}\\tSM:${sample.name}\\tPL:ILLUMINA$`, 'm'), "bwa mem's read group");
  assert.match(header, /^@SQ\tSN:chr1\tLN:20000$/m);
  const report = readFileSync(files.flagstat, 'utf8');
  assert.equal(report, samtools(['flagstat', files.bam]), "the flagstat report is samtools' own for the BAM");
  const counts = flagstatCounts(report);
  const fastp = JSON.parse(readFileSync(files.fastpJson, 'utf8')) as {
    summary: { before_filtering: { total_reads: number }; after_filtering: { total_reads: number } };
  };
  assert.equal(fastp.summary.before_filtering.total_reads, 2 * sample.pairs, `fastp read every read of ${sample.name}`);
  assert.equal(counts.primary, fastp.summary.after_filtering.total_reads, 'every read fastp kept is aligned or listed unmapped');
  assert.ok(counts['primary mapped']! >= 0.95 * counts.primary, `reads simulated from the reference map: ${report}`);
  assert.ok(counts['properly paired']! >= 0.9 * counts['paired in sequencing']!, `pairs are proper: ${report}`);
  // The index is the BAM's: samtools reads it beside a copy of the BAM, and a region query through it finds every
  // read idxstats counts on chr1.
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-wdl-bai-'));
  try {
    writeFileSync(join(dir, 'x.bam'), readFileSync(files.bam));
    writeFileSync(join(dir, 'x.bam.bai'), readFileSync(files.bai));
    const [chr1] = samtools(['idxstats', join(dir, 'x.bam')]).split('\n');
    assert.equal(Number(chr1!.split('\t')[2]), counts['primary mapped']);
    assert.equal(Number(samtools(['view', '-c', '-F', '0x904', join(dir, 'x.bam'), 'chr1:1-20000']).trim()), counts['primary mapped']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.match(readFileSync(files.fastpHtml, 'utf8'), /<html/i);
  return samtools(['view', files.bam]);
}

/** The logs of a task's failed jobs, read as gdpy reads them (wdl/tasks/<id>/jobs/<job>/, then its Log_downloadURL). */
async function failedLogs(server: TestServer, alice: TestAccount, taskId: string, jobs: { job_id: string; name: string; status: string }[]): Promise<string> {
  const logs: string[] = [];
  for (const job of jobs.filter((j) => j.status === 'failed')) {
    const info = (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/${job.job_id}/`)).json();
    logs.push(`${job.name}: ${await (await fetch(info.Log_downloadURL)).text()}`);
  }
  return logs.join('\n');
}

const skipAll = skipWithout(hostToolsMissing(['fastp', 'bwa', 'samtools', 'wgsim']));

describe('a fastp -> bwa -> samtools WDL workflow scattered over samples', { skip: skipAll, timeout: 900_000 }, () => {
  const records = new Map<string, string[]>();
  let samples: string;

  before(() => {
    samples = mkdtempSync(join(tmpdir(), 'gdflow-wdl-pipelines-'));
    for (const [i, sample] of SAMPLES.entries()) {
      const { reference, r1, r2 } = demoSample(sample.pairs);
      if (i === 0) writeFileSync(join(samples, 'ref.fa'), reference);
      writeFileSync(join(samples, `${sample.name}_R1.fq`), r1);
      writeFileSync(join(samples, `${sample.name}_R2.fq`), r2);
    }
  });
  after(() => rmSync(samples, { recursive: true, force: true }));

  /** The workflow created through wdl/workflow/ as gwc does, run through wdl/tasks/; its jobs and outputs checked. */
  async function routesRun(f: CliFixture, label: string): Promise<string> {
    const { server, account: alice } = f;
    const base = `/home/admin/${label}`;
    for (const name of ['ref.fa', ...SAMPLES.flatMap((s) => [`${s.name}_R1.fq`, `${s.name}_R2.fq`])]) {
      await alice.api.json('PUT', `/accounts/${alice.name}/data${base}/in/${name}`, {
        body: readFileSync(join(samples, name)),
        contentType: 'application/octet-stream',
      });
    }
    const form = gwcForm(
      { name: 'align_samples', description: 'fastp, bwa mem, samtools over samples' },
      {
        source: { filename: 'align-samples.wdl', data: readFileSync(join(PIPELINE, 'align-samples.wdl')) },
        dependencies: { filename: 'imports.zip', data: zipOf({ [TASKS]: readFileSync(join(PIPELINE, TASKS), 'utf8') }) },
      },
    );
    const created = await sendForm(server, alice, 'POST', 'wdl/workflow/', form);
    assert.equal(created.status, 200, created.text);
    const [version] = (await gdpy(server, alice, 'GET', `wdl/workflow/${created.json().id}/?workflow_version=1`)).json();
    assert.deepEqual(version.inputs, {
      'align_samples.samples': 'Array[Sample]',
      'align_samples.reference': 'File',
      'align_samples.threads': 'Int (optional, default = 2)',
      'align_samples.fastp.qualified_quality': 'Int (optional, default = 15)',
    });
    const inputs = {
      'align_samples.reference': `${alice.name}:${base}/in/ref.fa`,
      'align_samples.samples': SAMPLES.map((s) => ({
        name: s.name,
        reads_1: `${alice.name}:${base}/in/${s.name}_R1.fq`,
        reads_2: `${alice.name}:${base}/in/${s.name}_R2.fq`,
      })),
    };
    const started = await gdpy(server, alice, 'POST', 'wdl/tasks/', {
      workflow_id: created.json().id,
      workflow_version: 1,
      inputs,
      output_dir: `${alice.name}:${base}/out/`,
      task_name: label,
      keep_output_structure: true,
    });
    assert.equal(started.status, 200, started.text);
    const taskId: string = started.json().task_id;
    const task = await waitForTask(alice, taskId, { timeoutMs: 600_000 });
    const { jobs } = (await gdpy(server, alice, 'GET', `wdl/tasks/${taskId}/jobs/`)).json();
    assert.equal(task.status, 'succeeded', `${task.reason}\n${await failedLogs(server, alice, taskId, jobs)}`);
    const ran = jobs.filter((j: any) => j.status === 'succeeded').map((j: any) => j.name);
    for (const call of ['bwa_index', ...SCATTERED]) {
      const count = call === 'bwa_index' ? 1 : SAMPLES.length;
      assert.equal(ran.filter((name: string) => name === call || name.startsWith(`${call}[`)).length, count, `${call}: ${JSON.stringify(ran)}`);
    }
    assert.deepEqual(
      jobs.filter((j: any) => j.status !== 'succeeded').map((j: any) => `${j.name} ${j.status}`),
      [],
    );

    // The run's outputs, as the run service reads them: Files as data-store paths under output_dir, read back as a
    // client reads them.
    const record = (await server.services.store.getAccount(alice.name))!;
    const caller = { accountId: record.id, accountName: alice.name, userName: 'admin', accessKeyId: alice.accessKeyId };
    const ended = await server.services.wdlRuns.outputs({ caller, account: alice.name, project: 'default', baseUrl: server.url }, taskId);
    const outputs = ended.outputs as Record<string, string[]>;
    assert.deepEqual(
      Object.keys(outputs).sort(),
      ['bais', 'bams', 'fastp_html', 'fastp_json', 'flagstat_reports'].map((o) => `align_samples.${o}`),
    );
    // A call's stdout() is `stdout` in output_dir (a second one `stdout_2`), not the hidden file the task wrote it to.
    assert.deepEqual(
      outputs['align_samples.flagstat_reports'],
      ['stdout', 'stdout_2', 'stdout_3'].map((n) => `${alice.name}:${base}/out/${n}`),
    );
    const local = join(samples, label);
    mkdirSync(local);
    const fetchOutput = async (dataPath: string): Promise<string> => {
      assert.ok(dataPath.startsWith(`${alice.name}:${base}/out/`), dataPath);
      const file = join(local, basename(dataPath));
      writeFileSync(
        file,
        Buffer.from(await (await alice.api.send('GET', `/accounts/${alice.name}/data${dataPath.slice(alice.name.length + 1)}`)).arrayBuffer()),
      );
      return file;
    };
    const runRecords: string[] = [];
    for (const [i, sample] of SAMPLES.entries()) {
      const files: SampleFiles = {
        bam: await fetchOutput(outputs['align_samples.bams']![i]!),
        bai: await fetchOutput(outputs['align_samples.bais']![i]!),
        flagstat: await fetchOutput(outputs['align_samples.flagstat_reports'][i]!),
        fastpJson: await fetchOutput(outputs['align_samples.fastp_json']![i]!),
        fastpHtml: await fetchOutput(outputs['align_samples.fastp_html']![i]!),
      };
      assert.equal(basename(files.bam), `${sample.name}.sorted.bam`);
      runRecords.push(checkSample(files, sample));
    }
    records.set(label, runRecords);
    return taskId;
  }

  /** `gdflow wdl run` against `f`'s server, its inputs local files: the outputs it prints and downloads, checked. */
  async function cliRun(f: CliFixture, label: string): Promise<void> {
    const inputs = {
      'align_samples.reference': 'ref.fa',
      'align_samples.samples': SAMPLES.map((s) => ({ name: s.name, reads_1: `${s.name}_R1.fq`, reads_2: `${s.name}_R2.fq` })),
    };
    writeFileSync(join(samples, `${label}.json`), JSON.stringify(inputs));
    const outdir = join(f.dir, label);
    const ran = await f.run(['wdl', 'run', '-i', join(samples, `${label}.json`), '--outdir', outdir, join(PIPELINE, 'align-samples.wdl')], {
      timeoutMs: 600_000,
    });
    assert.equal(ran.status, 0, ran.stderr);
    const { outputs } = ran.json() as { outputs: Record<string, string[]> };
    assert.deepEqual(
      outputs['align_samples.flagstat_reports'],
      ['stdout', 'stdout_2', 'stdout_3'].map((n) => join(outdir, n)),
    );
    const runRecords = SAMPLES.map((sample, i) => {
      assert.equal(outputs['align_samples.bams']![i], join(outdir, `${sample.name}.sorted.bam`));
      const files: SampleFiles = {
        bam: outputs['align_samples.bams']![i],
        bai: outputs['align_samples.bais']![i]!,
        flagstat: outputs['align_samples.flagstat_reports']![i]!,
        fastpJson: outputs['align_samples.fastp_json']![i]!,
        fastpHtml: outputs['align_samples.fastp_html']![i]!,
      };
      return checkSample(files, sample);
    });
    records.set(label, runRecords);
  }

  describe('on bwrap (the host sandbox)', () => {
    let f: CliFixture;
    before(async () => {
      f = await cliFixture({ executor: 'bwrap' });
    });
    after(async () => f?.close());

    it('wdl/workflow/ create, wdl/tasks/ run: every call of every sample a job, the outputs checked by content', async () => {
      await routesRun(f, 'routes-bwrap');
    });

    it('gdflow wdl run: local inputs uploaded, the outputs downloaded and checked by content', async () => {
      await cliRun(f, 'cli-bwrap');
    });
  });

  describe('on podman', { skip: skipWithout(demoImageUnavailable('podman')) }, () => {
    let f: CliFixture;
    before(async () => {
      tagDemoImageAs('podman', IMAGES);
      f = await cliFixture({ executor: 'podman', pullPolicy: 'never' });
    });
    after(async () => f?.close());

    it("wdl/tasks/ run: each call in its runtime's docker image, the outputs checked by content", async () => {
      const taskId = await routesRun(f, 'routes-podman');
      const { jobs } = (await gdpy(f.server, f.account, 'GET', `wdl/tasks/${taskId}/jobs/`)).json();
      const calls = jobs.filter((job: any) => ['bwa_index', ...SCATTERED].includes(job.name.replace(/\[\d+\]$/, '')));
      assert.equal(calls.length, 1 + SCATTERED.length * SAMPLES.length, JSON.stringify(jobs.map((j: any) => j.name)));
      for (const job of calls) {
        assert.match(job.image_digest ?? '', /^sha256:[0-9a-f]{64}$/, `${job.name} ran in an image: ${JSON.stringify(job)}`);
        assert.deepEqual(gdflowContainers('podman', job.job_id), [], `${job.name}: its container is gone`);
      }
    });

    it('gdflow wdl run: the same, its outputs checked by content', async () => {
      await cliRun(f, 'cli-podman');
    });
  });

  it('gives the same alignments, record for record, however it ran', () => {
    const [first, ...others] = [...records.entries()];
    assert.ok(first && others.length >= 1, `runs to compare: ${[...records.keys()].join(', ')}`);
    for (const [i, text] of first[1].entries()) assert.ok(text.split('\n').length > 1000, `${SAMPLES[i]!.name}: ${text.length} bytes of records`);
    for (const [label, texts] of others)
      assert.ok(
        texts.every((text, i) => text === first[1][i]),
        `${label}: the same records as ${first[0]}`,
      );
  });
});
