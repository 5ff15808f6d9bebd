/**
 * scripts/wes-runner end to end: CWL conformance tests of the v1.2 suite (../shared/cwl-v1.2, or GDFLOW_CWL_SUITE)
 * run through gdflow's WES by the WES runner as the conformance driver runs a runner (a real process, cwltest's
 * command line, on one gdflow server over HTTP started as `--server` starts it), each judged against the suite's
 * expected output; and a document needing a feature gdflow does not support, which the runner reports with exit 33.
 * Without the suite these tests fail when GDFLOW_REQUIRE_COMPONENTS=1 (CI), and skip otherwise.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultSuite } from '../../scripts/cwl/options.js';
import { runCommand, runTest, type RunnerConfig } from '../../scripts/cwl/run-test.js';
import { startDriverServer, type DriverServer } from '../../scripts/cwl/server.js';
import { loadSuite, type Suite } from '../../scripts/cwl/suite.js';
import { skipWithoutCwlSuite } from '../helpers/cwl-suite.js';
import { repoRoot } from '../helpers/paths.js';

const suiteDir = defaultSuite();

/**
 * Required tests that each exercise a part of the runner: a workflow and the tools it runs (run:), an attached format
 * ontology ($schemas), secondary files through a workflow, a `#main` of a $graph, a colon in a file's name, a
 * document default beyond a double's integers, Directory outputs.
 */
const TESTS = [
  'wf_simple',
  'format_checking_subclass',
  'secondary_files_workflow_propagation',
  'any_input_param_graph_no_default_hashmain',
  'colon_in_paths',
  'record_with_default',
  'capture_dirs',
];

const RUNNER = [process.execPath, join(repoRoot(), 'dist', 'scripts', 'wes-runner', 'main.js')];

describe('the WES runner on CWL conformance tests', { timeout: 300_000, skip: skipWithoutCwlSuite(suiteDir) }, () => {
  let server: DriverServer;
  let suite: Suite;
  let runner: RunnerConfig;
  before(async () => {
    // Without the suite (GDFLOW_REQUIRE_COMPONENTS=1): this throws, and every test fails.
    suite = loadSuite(suiteDir);
    server = await startDriverServer();
    runner = { command: RUNNER, args: [], cwd: suite.root, timeoutSeconds: 120, keepOutdirs: false, env: server.env };
  });
  after(async () => server?.close());

  for (const id of TESTS) {
    it(`passes ${id}`, async () => {
      const test = suite.tests.find((t) => t.id === id);
      assert.ok(test, `the suite has no test ${id}`);
      const result = await runTest(runner, test, new Set());
      assert.equal(result.status, 'PASS', `${result.message}\n${result.outcome.stderr}`);
    });
  }

  it('exits 33 for a document needing a feature gdflow does not support (DockerRequirement with only a dockerFile)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gdflow-wes-runner-'));
    try {
      const tool = { cwlVersion: 'v1.2', class: 'CommandLineTool', requirements: [{ class: 'DockerRequirement', dockerFile: 'FROM debian' }] };
      writeFileSync(join(dir, 'tool.cwl'), JSON.stringify({ ...tool, baseCommand: ['true'], inputs: {}, outputs: {} }));
      const outcome = await runCommand([...RUNNER, `--outdir=${dir}`, '--quiet', 'tool.cwl'], dir, 60, new Set(), server.env);
      assert.equal(outcome.exitCode, 33, outcome.stderr);
      assert.match(outcome.stderr, /dockerFile/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
