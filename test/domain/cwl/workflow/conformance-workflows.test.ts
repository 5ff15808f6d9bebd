/**
 * The workflow functions against the conformance suite (../shared/cwl-v1.2, or $GDFLOW_CWL_SUITE), on real values
 * only. For every test tagged workflow, scatter, conditional, multiple_input, subworkflow or step_input whose
 * document is a Workflow: the document and job load through the front end; every workflow in it (subworkflows
 * too) is planned; the job binds to the workflow's inputs (loadContents from the suite's files); the root expands
 * into its step jobs; and every job whose inputs are all known from the job object (nothing upstream to wait for)
 * is resolved with the real QuickJS sandbox: links, pickValue, defaults, scatter into instances, valueFrom and
 * `when` per instance, subworkflows into their own steps, recursively. A job that resolves to a process must give
 * an input object that binds to that process's inputs. A skipped step's outputs are null, so what depends only on
 * skipped steps is resolved too, and a workflow whose outputs can be gathered that way is compared with the
 * outputs the suite expects (as its driver compares them). No step is run and no output is invented: what
 * depends on a step that must run is left to the engine's end-to-end runs.
 *
 * A test that should pass must get through all of it; a should_fail test is counted where it fails, or as
 * passing through (it must then fail at run time).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { compareOutputs } from '../../../../scripts/cwl/compare.js';
import { defaultSuite } from '../../../../scripts/cwl/options.js';
import { loadSuite, type ConformanceTest } from '../../../../scripts/cwl/suite.js';
import { bindInputs, loadDocument, loadFormatOntology, loadJob } from '../../../../src/domain/cwl/index.js';
import type { CwlOutputObject, CwlProcess, Workflow } from '../../../../src/domain/cwl/index.js';
import {
  gatherJob,
  planWorkflow,
  resolveJob,
  ROOT_JOB_KEY,
  type CwlGatherPayload,
  type CwlNewJob,
  type CwlRun,
} from '../../../../src/domain/cwl/workflow/index.js';
import { LocalFileContents } from '../../../../src/engine/cwl/file-contents.js';
import { FileDocumentSource } from '../../../../src/engine/cwl/file-source.js';
import { JavaScriptSandbox } from '../../../../src/engine/js-sandbox/index.js';
import { skipWithoutCwlSuite } from '../../../helpers/cwl-suite.js';

const suiteDir = defaultSuite();
const skip = skipWithoutCwlSuite(suiteDir);
const TAGS = ['workflow', 'scatter', 'conditional', 'multiple_input', 'subworkflow', 'step_input'];
const sandbox = new JavaScriptSandbox({ workers: 1 });
after(() => sandbox.close());

type Stage = 'document' | 'job' | 'plan' | 'resolve' | 'process inputs' | 'gather';

interface Outcome {
  workflow: boolean;
  /** Where it stopped, undefined when it got through. */
  failed?: { stage: Stage; message: string };
  /** Jobs resolved from the job object alone, by what they resolved to. */
  resolved: Record<'process' | 'skipped' | 'expand', number>;
  /** Jobs left waiting for a step that must run first. */
  waiting: number;
  /** The workflow's outputs, when they were gathered without running anything (every step that mattered was skipped). */
  decided?: CwlOutputObject;
}

/** Every workflow of a document, the root first, each once. */
function workflowsOf(process: CwlProcess, seen = new Set<CwlProcess>()): Workflow[] {
  if (process.class !== 'Workflow' || seen.has(process)) return [];
  seen.add(process);
  return [process, ...process.steps.flatMap((step) => workflowsOf(step.run, seen))];
}

async function check(test: ConformanceTest, root: string): Promise<Outcome> {
  const outcome: Outcome = { workflow: false, resolved: { process: 0, skipped: 0, expand: 0 }, waiting: 0 };
  const source = new FileDocumentSource();
  let stage: Stage = 'document';
  try {
    const [tool, fragment] = test.tool.split('#');
    const { process } = await loadDocument(pathToFileURL(join(root, tool!)).href + (fragment ? `#${fragment}` : ''), source);
    if (process.class !== 'Workflow') return outcome;
    outcome.workflow = true;
    stage = 'job';
    const job = test.job ? await loadJob(pathToFileURL(join(root, test.job)).href, source, { namespaces: process.namespaces }) : undefined;
    const ontology = process.schemas.length > 0 ? await loadFormatOntology(process.schemas, source) : undefined;
    stage = 'plan';
    for (const workflow of workflowsOf(process)) planWorkflow(workflow);
    const run: CwlRun = { root: process, jobRequirements: job?.requirements ?? [] };
    const options = { evaluator: sandbox, contents: new LocalFileContents(), ...(ontology ? { ontology } : {}) };
    const outputs = new Map<string, CwlOutputObject>();
    const gathering = new Map<string, { gather: CwlGatherPayload; jobs: readonly string[] }>();
    let waiting: CwlNewJob[] = [{ key: ROOT_JOB_KEY, deps: [], payload: { kind: 'root', inputs: job?.values ?? {} } }];
    for (let progress = true; progress;) {
      progress = false;
      for (const next of waiting.filter((j) => j.deps.every((d) => outputs.has(d)))) {
        waiting = waiting.filter((j) => j !== next);
        progress = true;
        stage = 'resolve';
        const resolution = await resolveJob(run, next.key, next.payload, (k) => outputs.get(k), options);
        outcome.resolved[resolution.kind] += 1;
        if (resolution.kind === 'skipped') outputs.set(next.key, resolution.outputs);
        if (resolution.kind === 'expand') {
          waiting.push(...resolution.jobs);
          gathering.set(next.key, { gather: resolution.gather, jobs: resolution.jobs.map((j) => j.key) });
        }
        if (resolution.kind === 'process') {
          stage = 'process inputs';
          bindInputs(resolution.process.inputs, resolution.inputs, ontology ? { ontology } : {});
        }
      }
      for (const [key, { gather, jobs }] of gathering) {
        if (!jobs.every((k) => outputs.has(k))) continue;
        stage = 'gather';
        outputs.set(
          key,
          gatherJob(run, gather, (k) => outputs.get(k), options),
        );
        gathering.delete(key);
        progress = true;
      }
    }
    outcome.waiting = waiting.length;
    outcome.decided = outputs.get(ROOT_JOB_KEY);
    return outcome;
  } catch (error) {
    return { ...outcome, failed: { stage, message: error instanceof Error ? error.message : String(error) } };
  }
}

describe('CWL conformance workflows through the workflow functions', () => {
  it('plans, binds and resolves what the job alone decides in every workflow test that should pass', { skip }, async () => {
    const suite = loadSuite(suiteDir);
    const selected = suite.tests.filter((t) => t.tags.some((tag) => TAGS.includes(tag)));
    const failures: string[] = [];
    const stopped: string[] = [];
    const through: string[] = [];
    let workflows = 0;
    let decided = 0;
    const totals = { process: 0, skipped: 0, expand: 0, waiting: 0 };
    for (const test of selected) {
      const outcome = await check(test, suite.root);
      if (!outcome.workflow && !outcome.failed) continue;
      workflows += 1;
      for (const kind of ['process', 'skipped', 'expand'] as const) totals[kind] += outcome.resolved[kind];
      totals.waiting += outcome.waiting;
      if (outcome.decided && !outcome.failed) {
        decided += 1;
        const mismatch = test.shouldFail ? undefined : compareOutputs(test.output, outcome.decided, suite.root);
        if (mismatch) failures.push(`${test.id}: outputs at ${mismatch.at}: ${mismatch.reason}`);
      }
      const line = outcome.failed ? `${test.id}: ${outcome.failed.stage}: ${outcome.failed.message.split('\n')[0]}` : test.id;
      if (!test.shouldFail) {
        if (outcome.failed) failures.push(`${test.id} (${test.tool}): ${outcome.failed.stage}: ${outcome.failed.message}`);
      } else if (outcome.failed) stopped.push(line);
      else through.push(line);
    }
    const mustPass = selected.filter((t) => !t.shouldFail).length;
    console.log(`${selected.length} tests tagged ${TAGS.join(', ')}; ${workflows} run a Workflow`);
    console.log(`${mustPass - failures.length}/${mustPass} that should pass get through`);
    console.log(`jobs resolved from the job alone: ${totals.expand} expansions, ${totals.process} processes, ${totals.skipped} skipped`);
    console.log(`jobs left waiting for a step that must run (the engine's part): ${totals.waiting}`);
    console.log(`workflows whose outputs are gathered without running anything (every step skipped), as the suite expects: ${decided}`);
    console.log(`should_fail: ${stopped.length} fail here, ${through.length} get through (they must fail at run time)`);
    for (const line of stopped) console.log(`  fails here: ${line}`);
    console.log(`  get through: ${through.join(', ')}`);
    assert.deepEqual(failures, []);
  });
});
