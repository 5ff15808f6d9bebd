import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exitStatus } from '../../../../src/domain/cwl/tool/index.js';
import { TOOL, yaml } from '../helpers.js';
import { prepare, rejectsWith } from './helpers.js';

describe('CWL CommandLineTool: what a run needs besides its command', () => {
  it('evaluates stdin, stdout and stderr, and generates names for the stdout and stderr output types', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cat
        stdin: $(inputs.name).in
        stdout: $(inputs.name).out
        inputs: {name: string}
        outputs:
          err: stderr
        `,
      { name: 'sample' },
    );
    assert.equal(run.stdin, '/var/data/sample.in');
    assert.equal(run.stdout, 'sample.out');
    assert.match(run.stderr ?? '', /^[\w.-]+$/, 'a generated name in the outdir');
    const relative = /stdout must be a file name relative to the output directory/;
    await rejectsWith(prepare(TOOL + 'baseCommand: cat\nstdout: ../escape\ninputs: []\noutputs: []\n'), relative);
    await rejectsWith(prepare(TOOL + 'baseCommand: cat\nstdout: /etc/x\ninputs: []\noutputs: []\n'), /stdout must be/);
  });

  it('sets HOME and TMPDIR, then EnvVarRequirement variables from expressions', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: env
        requirements:
          EnvVarRequirement:
            envDef: {SAMPLE: $(inputs.name), FIXED: 'a b', HOME: /override}
        inputs: {name: string}
        outputs: []
        `,
      { name: 's1' },
    );
    assert.deepEqual(run.env, { HOME: '/override', TMPDIR: '/tmp', SAMPLE: 's1', FIXED: 'a b' });
  });

  it('decides resources: defaults, v1.0 ram, a missing bound from the other, expressions, fractional cores rounded up in runtime', async () => {
    const plain = await prepare(TOOL + 'baseCommand: x\ninputs: []\noutputs: []\n');
    const defaults = { coresMin: 1, coresMax: 1, ramMin: 256, ramMax: 256, tmpdirMin: 1024, tmpdirMax: 1024, outdirMin: 1024, outdirMax: 1024 };
    assert.deepEqual(plain.resources, defaults);
    assert.deepEqual([plain.runtime.cores, plain.runtime.ram, plain.runtime.tmpdirSize, plain.runtime.outdirSize], [1, 256, 1024, 1024]);
    const old = await prepare('cwlVersion: v1.0\nclass: CommandLineTool\nbaseCommand: x\ninputs: []\noutputs: []\n');
    assert.equal(old.resources.ramMin, 1024);
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: x
        requirements:
          ResourceRequirement: {coresMin: 1.5, ramMax: $(inputs.mem * 2), tmpdirMin: 10, outdirMin: $(inputs.mem)}
          InlineJavascriptRequirement: {}
        arguments: [$(runtime.cores), $(runtime.ram)]
        inputs: {mem: int}
        outputs: []
        `,
      { mem: 300 },
    );
    assert.deepEqual(run.resources, { coresMin: 1.5, coresMax: 1.5, ramMin: 600, ramMax: 600, tmpdirMin: 10, tmpdirMax: 10, outdirMin: 300, outdirMax: 300 });
    assert.equal(run.runtime.cores, 2);
    assert.deepEqual(run.argv, ['x', '2', '600']);
    await rejectsWith(
      prepare(TOOL + 'baseCommand: x\nrequirements: {ResourceRequirement: {coresMin: $(inputs.n)}}\ninputs: {n: string}\noutputs: []\n', { n: 'many' }),
      /ResourceRequirement\.coresMin must be a positive number/,
    );
  });

  it('evaluates ToolTimeLimit, NetworkAccess and WorkReuse, and reads InplaceUpdateRequirement', async () => {
    const defaults = await prepare(TOOL + 'baseCommand: x\ninputs: []\noutputs: []\n');
    assert.deepEqual([defaults.timeLimit, defaults.networkAccess, defaults.reusable, defaults.inplaceUpdate], [0, false, true, false]);
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: x
        requirements:
          ToolTimeLimit: {timelimit: $(inputs.seconds)}
          NetworkAccess: {networkAccess: $(inputs.seconds > 5)}
          WorkReuse: {enableReuse: false}
          InplaceUpdateRequirement: {inplaceUpdate: true}
          InlineJavascriptRequirement: {}
        inputs: {seconds: int}
        outputs: []
        `,
      { seconds: 30 },
    );
    assert.deepEqual([run.timeLimit, run.networkAccess, run.reusable, run.inplaceUpdate], [30, true, false, true]);
    const v10 = await prepare('cwlVersion: v1.0\nclass: CommandLineTool\nbaseCommand: x\ninputs: []\noutputs: []\n');
    assert.equal(v10.networkAccess, true, 'v1.0 documents have network access');
    await rejectsWith(
      prepare(TOOL + 'baseCommand: x\nrequirements: {ToolTimeLimit: {timelimit: $(inputs.t)}}\ninputs: {t: int}\noutputs: []\n', { t: -1 }),
      /must not be negative/,
    );
  });

  it('reports DockerRequirement, and moves the outdir to dockerOutputDirectory only when the run is in a container', async () => {
    const text =
      TOOL +
      yaml`
      baseCommand: touch
      arguments: [$(runtime.outdir)/done]
      requirements:
        DockerRequirement: {dockerPull: 'debian:stable', dockerOutputDirectory: /out}
      inputs: []
      outputs: []
      `;
    const contained = await prepare(text, {}, { container: true });
    assert.deepEqual(contained.container, { image: 'debian:stable', requirement: contained.container?.requirement, required: true });
    assert.equal(contained.runtime.outdir, '/out');
    assert.deepEqual(contained.argv, ['touch', '/out/done']);
    assert.equal(contained.env.HOME, '/out');
    const host = await prepare(text, {}, { container: false });
    assert.equal(host.runtime.outdir, '/var/data');
  });

  it('takes the requirements in force from the caller (a workflow step, a job with cwl:requirements)', async () => {
    const run = await prepare(
      TOOL + 'baseCommand: env\nrequirements: {EnvVarRequirement: {envDef: {A: tool}}}\ninputs: []\noutputs: []\n',
      {},
      { effective: { requirements: [{ class: 'EnvVarRequirement', envDef: [{ envName: 'A', envValue: 'step' }] }], hints: [] } },
    );
    assert.equal(run.env.A, 'step');
  });

  it('classifies exit codes: successCodes, temporaryFailCodes, permanentFailCodes, 0 succeeds otherwise', async () => {
    const run = await prepare(TOOL + 'baseCommand: x\nsuccessCodes: [1]\ntemporaryFailCodes: [75]\npermanentFailCodes: [0]\ninputs: []\noutputs: []\n');
    assert.equal(exitStatus(run, 1), 'success');
    assert.equal(exitStatus(run, 75), 'temporaryFail');
    assert.equal(exitStatus(run, 0), 'permanentFail');
    assert.equal(exitStatus(run, 2), 'permanentFail');
    const plain = await prepare(TOOL + 'baseCommand: x\ninputs: []\noutputs: []\n');
    assert.equal(exitStatus(plain, 0), 'success');
  });
});
