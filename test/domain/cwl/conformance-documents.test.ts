/**
 * Every CWL document and job object of the conformance suite (../shared/cwl-v1.2, or $GDFLOW_CWL_SUITE),
 * through the front end: the document loads (with every document it runs), the job loads and binds to the
 * process's inputs (formats checked against the document's $schemas). A test that is not should_fail must
 * get through all of it. A should_fail test may fail here (at load: counted) or get through (it fails at
 * run time: counted too), and both are printed with the counts; but one the suite does not tag
 * `inputs_should_parse` is invalid before it runs, and must fail here.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { defaultSuite } from '../../../scripts/cwl/options.js';
import { loadSuite, type ConformanceTest } from '../../../scripts/cwl/suite.js';
import { bindInputs, CwlValidationError, loadDocument, loadFormatOntology, loadJob } from '../../../src/domain/cwl/index.js';
import { FileDocumentSource } from '../../../src/engine/cwl/file-source.js';
import { skipWithoutCwlSuite } from '../../helpers/cwl-suite.js';

const suiteDir = defaultSuite();
const skip = skipWithoutCwlSuite(suiteDir);

/** Where a test stops in the front end: undefined when it gets through, else the stage and the message. */
async function frontEnd(test: ConformanceTest, root: string): Promise<{ stage: 'document' | 'job'; message: string } | undefined> {
  const source = new FileDocumentSource();
  const [tool, fragment] = test.tool.split('#');
  let stage: 'document' | 'job' = 'document';
  try {
    const { process } = await loadDocument(pathToFileURL(join(root, tool!)).href + (fragment ? `#${fragment}` : ''), source);
    stage = 'job';
    const job = test.job ? await loadJob(pathToFileURL(join(root, test.job)).href, source, { namespaces: process.namespaces }) : { values: {} };
    const ontology = process.schemas.length > 0 ? await loadFormatOntology(process.schemas, source) : undefined;
    bindInputs(process.inputs, job.values, ontology ? { ontology } : {});
    return undefined;
  } catch (error) {
    if (!(error instanceof CwlValidationError)) throw error;
    return { stage, message: error.message };
  }
}

describe('CWL conformance suite through the front end', () => {
  it('loads every document and job of the tests that should pass, refuses the invalid ones, counts the rest', { skip }, async () => {
    const suite = loadSuite(suiteDir);
    const failures: string[] = [];
    const invalidButLoaded: string[] = [];
    const stoppedAtLoad: string[] = [];
    const loaded: string[] = [];
    for (const test of suite.tests) {
      const outcome = await frontEnd(test, suite.root);
      if (!test.shouldFail) {
        if (outcome) failures.push(`${test.id} (${test.tool}): ${outcome.stage}: ${outcome.message}`);
      } else if (outcome) stoppedAtLoad.push(`${test.id}: ${outcome.stage}: ${outcome.message.split('\n')[0]}`);
      else {
        loaded.push(test.id);
        if (!test.tags.includes('inputs_should_parse')) invalidButLoaded.push(test.id);
      }
    }
    const passing = suite.tests.filter((t) => !t.shouldFail).length;
    console.log(`${suite.tests.length} tests: ${passing - failures.length}/${passing} that should pass load with their jobs`);
    console.log(`should_fail: ${stoppedAtLoad.length} fail in the front end, ${loaded.length} load (they must fail at run time)`);
    for (const line of stoppedAtLoad) console.log(`  fails at load: ${line}`);
    console.log(`  load: ${loaded.join(', ')}`);
    assert.deepEqual(failures, []);
    assert.deepEqual(invalidButLoaded, [], 'should_fail tests not tagged inputs_should_parse fail in the front end');
  });
});
