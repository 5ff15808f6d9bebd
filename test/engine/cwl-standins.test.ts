/**
 * The CWL conformance suite's container images, offline: the stand-ins of scripts/images/build-cwl-standins.sh run
 * what the suite's DockerRequirement tests run in the real images, through gdflow's podman executor (so with its
 * flags: read-only image, no network, no capabilities, uid 0, /var/data), and give the outputs the suite expects (its
 * checksums, its argument lists). The images are built by .ci/run, not here (about 1.5 minutes, needing root and the
 * Debian archive): missing, these tests skip saying so, or fail under GDFLOW_REQUIRE_COMPONENTS=1. The cases
 * (helpers/cwl-standin-cases.ts) run the suite's own files, read where its driver reads them (GDFLOW_CWL_SUITE, or
 * ../shared/cwl-v1.2).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultUlimits } from '../../src/engine/executors/container/ulimits.js';
import { createExecutor, type RunSpec } from '../../src/engine/executors/index.js';
import { defaultSuite } from '../../scripts/cwl/options.js';
import { loadSuite, type Suite } from '../../scripts/cwl/suite.js';
import { CWL_STANDIN_IMAGES, cwlStandInsUnavailable, runtimeUnavailable } from '../helpers/containers.js';
import { CASES, COMMANDS, INPUTS, type Expected } from '../helpers/cwl-standin-cases.js';
import { skipWithout } from '../helpers/components.js';
import { skipWithoutCwlSuite } from '../helpers/cwl-suite.js';

const { debian, bash } = CWL_STANDIN_IMAGES;
const unavailable = runtimeUnavailable('podman') ?? cwlStandInsUnavailable('podman');
const suiteDir = defaultSuite();
const noSuite = skipWithoutCwlSuite(suiteDir);

describe('the CWL stand-in images under the podman executor', { timeout: 300_000, skip: skipWithout(unavailable) }, () => {
  const executor = createExecutor('podman', { killGraceMs: 1000 });
  let base: string;
  let counter = 0;
  before(async () => {
    if (unavailable) throw new Error(unavailable);
    await executor.check();
    base = await mkdtemp(join(tmpdir(), 'gdflow-cwl-standins-'));
  });
  after(async () => {
    await executor.close?.();
    if (base) await rm(base, { recursive: true, force: true });
  });

  /** A job in `image` with a fresh working directory, prepared by `prepare`. */
  async function run(image: string, command: string, prepare: (work: string) => Promise<Partial<RunSpec>> = () => Promise.resolve({})) {
    const dir = join(base, `job${++counter}`);
    const work = join(dir, 'work');
    await mkdir(work, { recursive: true });
    const spec: RunSpec = {
      jobId: `cwlstandin${process.pid}x${counter}`,
      workDir: work,
      command,
      mounts: [],
      stdoutLog: join(dir, 'stdout.log'),
      stderrLog: join(dir, 'stderr.log'),
      cpu: 1,
      memMb: 512,
      network: false,
      timeoutSeconds: 120,
      image,
      ...(await prepare(work)),
    };
    const result = await executor.run(spec, new AbortController().signal);
    return { work, result, stdout: await readFile(spec.stdoutLog, 'utf8'), stderr: await readFile(spec.stderrLog, 'utf8') };
  }

  for (const [image, { tools, probe, expect }] of Object.entries(COMMANDS)) {
    it(`${image} says it is a stand-in and has what the suite's tools call`, async () => {
      const inspected = spawnSync('podman', ['image', 'inspect', '--format', '{{json .Config}}', image], { encoding: 'utf8' });
      assert.equal(inspected.status, 0, inspected.stderr);
      const config = JSON.parse(inspected.stdout) as { Labels?: Record<string, string>; Entrypoint?: string[] | null; Cmd?: string[] };
      assert.match(config.Labels?.['gdflow.stand-in'] ?? '', /build-cwl-standins\.sh\), not the real image$/);
      const command = `for tool in ${tools.join(' ')}; do command -v "$tool" >/dev/null || echo "missing: $tool"; done; ${probe}`;
      const { result, stdout, stderr } = await run(image, command);
      assert.equal(result.outcome, 'succeeded', `${result.reason}: ${stderr}`);
      assert.doesNotMatch(stdout, /^missing: /m);
      for (const pattern of expect) assert.match(stdout, pattern);
    });
  }

  describe("the suite's container tests", { skip: noSuite }, () => {
    let suite: Suite;
    before(() => {
      suite = loadSuite(suiteDir);
    });

    for (const test of CASES) {
      it(`${test.id} in ${test.image}`, async () => {
        const entry = suite.tests.find((t) => t.id === test.id);
        assert.ok(entry, `the suite has a test ${test.id}`);
        const source = (path: string) => join(suite.root, 'tests', path);
        const job = await run(test.image, test.command, async (work) => {
          for (const [name, path] of Object.entries(test.staged ?? {})) {
            await copyFile(source(path), join(work, name));
            await chmod(join(work, name), 0o644);
          }
          for (const [name, text] of Object.entries(test.written ?? {})) await writeFile(join(work, name), text);
          for (const name of test.dirs ?? []) await mkdir(join(work, name));
          return {
            mounts: Object.entries(test.inputs ?? {}).map(([name, path]) => ({ hostPath: source(path), sandboxPath: `${INPUTS}/${name}`, readOnly: true })),
            ...(test.stdin ? { stdin: `/var/data/${test.stdin}` } : {}),
            ...(test.stdout ? { stdout: `/var/data/${test.stdout}` } : {}),
          };
        });
        if (!entry.shouldFail) assert.equal(job.result.outcome, 'succeeded', `${job.result.reason}: ${job.stderr}`);
        await test.expect({ ...job, suite }, entry.output as Expected);
      });
    }
  });

  describe("run as the suite's own runner runs them: `podman run IMAGE ARGS`, no entrypoint given", () => {
    const ulimits = defaultUlimits().flatMap((limit) => ['--ulimit', limit]);
    const podmanRun = (args: string[]) =>
      spawnSync('podman', ['run', '--rm', '--network=none', '--read-only', ...ulimits, ...args], { encoding: 'utf8', timeout: 60_000 });

    it('bash:4.4 hands arguments that start with an option to bash (docker_entrypoint)', async () => {
      const dir = await mkdtemp(join(base, 'entrypoint-'));
      const ran = podmanRun(['--mount', `type=bind,source=${dir},destination=/var/data`, '--workdir', '/var/data', bash, '-c', "echo 'moo' > cow"]);
      assert.equal(ran.status, 0, ran.stderr);
      assert.equal(await readFile(join(dir, 'cow'), 'utf8'), 'moo\n');
      // ... as --version; a command is run as it is.
      assert.match(podmanRun([bash, '--version']).stdout, /^GNU bash, version 5\./);
      assert.equal(podmanRun([bash, 'sh', '-c', 'echo $0']).stdout, 'sh\n');
    });

    it('debian:stable-slim writes into a directory mounted where the image has none (dockeroutputdir: /other)', async () => {
      const dir = await mkdtemp(join(base, 'other-'));
      const ran = podmanRun(['--mount', `type=bind,source=${dir},destination=/other`, debian, 'touch', '/other/thing']);
      assert.equal(ran.status, 0, ran.stderr);
      assert.equal((await readFile(join(dir, 'thing'))).length, 0);
    });
  });
});
