/**
 * The conformance suite (../shared/cwl-v1.2, or $GDFLOW_CWL_SUITE) against prepareToolRun, without running
 * anything. Every test tagged command_line_tool whose tool is a CommandLineTool is prepared as the engine would
 * prepare it (inputs bound, the job's cwl:requirements in force, local files, the real sandbox; in a container when
 * the tool has a DockerRequirement); those that should pass must prepare. The tests whose expected output is the
 * command line itself (tools running `python args.py`, which prints its arguments' basenames as `args`) must
 * give exactly that command line after the script.
 */
import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { defaultSuite } from '../../../../scripts/cwl/options.js';
import { loadSuite, type ConformanceTest } from '../../../../scripts/cwl/suite.js';
import { bindInputs, loadDocument, loadFormatOntology, loadJob } from '../../../../src/domain/cwl/index.js';
import { prepareToolRun, type ToolRun } from '../../../../src/domain/cwl/tool/index.js';
import { effectiveRequirements, findRequirement } from '../../../../src/domain/cwl/workflow/requirements.js';
import { FileDocumentSource } from '../../../../src/engine/cwl/file-source.js';
import { files, RUNTIME, sandbox } from './helpers.js';
import { skipWithoutCwlSuite } from '../../../helpers/cwl-suite.js';

const suiteDir = defaultSuite();
const skip = skipWithoutCwlSuite(suiteDir);

/** The test's run as prepareToolRun decides it, or undefined when its document is not a CommandLineTool. */
async function prepareTest(test: ConformanceTest, root: string): Promise<ToolRun | undefined> {
  const source = new FileDocumentSource();
  const [tool, fragment] = test.tool.split('#');
  const { process } = await loadDocument(pathToFileURL(join(root, tool!)).href + (fragment ? `#${fragment}` : ''), source);
  if (process.class !== 'CommandLineTool') return undefined;
  const job = test.job ? await loadJob(pathToFileURL(join(root, test.job)).href, source, { namespaces: process.namespaces }) : undefined;
  const ontology = process.schemas.length > 0 ? await loadFormatOntology(process.schemas, source) : undefined;
  const inputs = bindInputs(process.inputs, job?.values ?? {}, ontology ? { ontology } : {});
  const effective = effectiveRequirements([], undefined, process, job?.requirements ?? []);
  const container = findRequirement(effective, 'DockerRequirement') !== undefined;
  return prepareToolRun(process, inputs, RUNTIME, { effective, files, evaluator: sandbox, container, ...(ontology ? { ontology } : {}) });
}

describe('CWL conformance suite through prepareToolRun', () => {
  it('prepares every command_line_tool test that should pass, and builds the command lines the args.py tests expect', { skip }, async () => {
    const suite = loadSuite(suiteDir);
    const failures: string[] = [];
    const mismatches: string[] = [];
    let prepared = 0;
    let argsTests = 0;
    let stoppedShouldFail = 0;
    for (const test of suite.tests.filter((t) => t.tags.includes('command_line_tool'))) {
      let run: ToolRun | undefined;
      try {
        run = await prepareTest(test, suite.root);
      } catch (error) {
        if (test.shouldFail) stoppedShouldFail++;
        else failures.push(`${test.id}: ${(error as Error).message}`);
        continue;
      }
      if (run === undefined) continue;
      prepared++;
      const expected = (test.output as { args?: unknown } | undefined)?.args;
      if (!Array.isArray(expected)) continue;
      argsTests++;
      const script = run.argv.findIndex((word) => word.endsWith('args.py'));
      const actual = run.argv.slice(script + 1).map((word) => basename(word));
      if (script < 0 || JSON.stringify(actual) !== JSON.stringify(expected)) {
        mismatches.push(`${test.id}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
      }
    }
    console.log(`${prepared} CommandLineTool tests prepared; should_fail tests stopped at preparation: ${stoppedShouldFail}`);
    console.log(`args.py command lines: ${argsTests - mismatches.length}/${argsTests} match`);
    assert.deepEqual(failures, []);
    assert.deepEqual(mismatches, []);
    assert.ok(argsTests >= 11, `the suite has 11 args.py tests tagged command_line_tool, found ${argsTests}`);
  });
});
