import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindInputs, CwlValidationError, loadJob, readJob } from '../../../src/domain/cwl/index.js';
import { BASE, loadProcess, source, TOOL, yaml } from './helpers.js';

describe('CWL job objects', () => {
  it('resolves location and path against the job file, keeps literal contents and listings, and secondaryFiles', async () => {
    const job = await loadJob(
      `${BASE}jobs/job.yml`,
      source({
        'jobs/job.yml': yaml`
            reads: {class: File, location: ../data/r1.fq, secondaryFiles: [{class: File, path: r1.fq.idx}]}
            ref: {class: File, path: /abs/ref fa.fa}
            note: {class: File, basename: note.txt, contents: hi}
            dir:
              class: Directory
              basename: d
              listing: [{class: File, location: "x%3Ay.txt"}]
            n: 3
          `,
      }),
    );
    assert.deepEqual(job.values, {
      reads: { class: 'File', location: `${BASE}data/r1.fq`, secondaryFiles: [{ class: 'File', location: `${BASE}jobs/r1.fq.idx` }] },
      ref: { class: 'File', location: 'file:///abs/ref%20fa.fa' },
      note: { class: 'File', basename: 'note.txt', contents: 'hi' },
      dir: { class: 'Directory', basename: 'd', listing: [{ class: 'File', location: `${BASE}jobs/x%3Ay.txt` }] },
      n: 3,
    });
  });

  it('expands format prefixes with the job’s and the process’s $namespaces, and reads cwl:requirements', async () => {
    const job = await loadJob(
      `${BASE}job.json`,
      source({
        'job.json': JSON.stringify({
          $namespaces: { gx: 'http://galaxyproject.org/formats/' },
          a: { class: 'File', location: 'a.fa', format: 'edam:format_1929' },
          b: { class: 'File', location: 'b.fa', format: 'gx:fasta' },
          'cwl:requirements': [{ class: 'EnvVarRequirement', envDef: [{ envName: 'X', envValue: 'y' }] }],
        }),
      }),
      { namespaces: { edam: 'http://edamontology.org/' } },
    );
    assert.equal((job.values.a as { format: string }).format, 'http://edamontology.org/format_1929');
    assert.equal((job.values.b as { format: string }).format, 'http://galaxyproject.org/formats/fasta');
    assert.deepEqual(
      job.requirements.map((r) => ({ ...r, at: undefined })),
      [{ class: 'EnvVarRequirement', envDef: [{ envName: 'X', envValue: 'y' }], at: undefined }],
    );
    assert.equal('cwl:requirements' in job.values, false);
  });

  it('reads integers beyond 2^53 exactly, in YAML and JSON jobs alike (JSON is YAML)', async () => {
    const huge = '4200000000000000000000000000000000000000000';
    const files = source({ 'j.yml': `l: 9223372036854775807\nd: [${huge}, -${huge}]\nsmall: 9007199254740991\n`, 'j.json': `{"d": ${huge}, "f": 4.2}` });
    assert.deepEqual((await loadJob(`${BASE}j.yml`, files)).values, { l: 9223372036854775807n, d: [BigInt(huge), -BigInt(huge)], small: 9007199254740991 });
    assert.deepEqual((await loadJob(`${BASE}j.json`, files)).values, { d: BigInt(huge), f: 4.2 });
  });

  it('reads an empty file as an empty job, and refuses a job that is not an object', async () => {
    assert.deepEqual((await loadJob(`${BASE}empty.yml`, source({ 'empty.yml': '\n' }))).values, {});
    await assert.rejects(loadJob(`${BASE}list.yml`, source({ 'list.yml': '- 1\n' })), /a job object must map input names to values, not a list/);
    assert.deepEqual(readJob({ x: { class: 'File', location: 'x' } }, 'file:///data/').values, { x: { class: 'File', location: 'file:///data/x' } });
  });

  it('reports a value that does not fit its input at its line in the job file', async () => {
    const tool = await loadProcess({
      't.cwl': `${TOOL}inputs:\n  sample:\n    type:\n      type: record\n      fields: {reads: "File[]"}\noutputs: []\n`,
    });
    const job = await loadJob(`${BASE}job.yml`, source({ 'job.yml': 'sample:\n  reads:\n    - {class: File, location: a.fq}\n    - b.fq\n' }));
    assert.throws(
      () => bindInputs(tool.inputs, job.values),
      (error: unknown) =>
        error instanceof CwlValidationError &&
        error.issues[0]!.message === 'inputs.sample.reads[1]: must be File, not the string "b.fq"' &&
        error.issues[0]!.at?.uri === `${BASE}job.yml` &&
        error.issues[0]!.at.line === 4,
    );
  });
});
