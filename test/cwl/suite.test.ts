/**
 * The conformance driver's suite loading ($import, paths resolved against the file naming them, cwltest's defaults)
 * and its test selection (tags first, then numbers and ids), on small suites written here, and on the real suite
 * when it is beside the repository.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultSuite } from '../../scripts/cwl/options.js';
import { numberTests, parseRanges, selectTests } from '../../scripts/cwl/select.js';
import { loadSuite, type ConformanceTest } from '../../scripts/cwl/suite.js';
import { skipWithoutCwlSuite } from '../helpers/cwl-suite.js';

let dir: string;

/** A suite in the shape of the real one: a flow list indented less than its key, an import from a subdirectory. */
const MAIN = `# comment
- job: tests/cat-job.json
  tool: tests/cat1.cwl
  output:
    args: [cat, -n, hello.txt, --long-option, '20', --another,
    '1,2,3']
  id: cl_first
  doc: First
    test
  tags: [ required, command_line_tool ]

- $import: tests/sub/test-index.yaml

- tool: tests/wf.cwl#main
  id: wf_no_job
  doc: A workflow run without a job
  should_fail: true
  tags: [ workflow, scatter ]
`;

const SUB = `- id: sub_one
  tool: tool.cwl
  job: ../cat-job.json
  output: { out: Any }
  tags: [ inline_javascript, command_line_tool ]

- id: sub_untagged
  tool: tool.cwl
  output: { big: 4200000000000000000000000000000000000000000, small: 4242424242, float: 4.2e+42, hex: 0x1F }
`;

function writeSuite(root: string, main: string, sub = SUB): string {
  mkdirSync(join(root, 'tests', 'sub'), { recursive: true });
  writeFileSync(join(root, 'conformance_tests.yaml'), main);
  writeFileSync(join(root, 'tests', 'sub', 'test-index.yaml'), sub);
  return root;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cwl-suite-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('loading a suite', () => {
  it('expands $import in place and resolves tool and job against the file naming them, relative to the suite root', () => {
    const root = writeSuite(join(dir, 'ok'), MAIN);
    const suite = loadSuite(root);
    assert.equal(suite.root, root);
    assert.deepEqual(
      suite.tests.map((t) => [t.position, t.id, t.tool, t.job]),
      [
        [1, 'cl_first', 'tests/cat1.cwl', 'tests/cat-job.json'],
        [2, 'sub_one', 'tests/sub/tool.cwl', 'tests/cat-job.json'],
        [3, 'sub_untagged', 'tests/sub/tool.cwl', undefined],
        [4, 'wf_no_job', 'tests/wf.cwl#main', undefined],
      ],
    );
    const [first, sub, untagged, wf] = suite.tests as [ConformanceTest, ConformanceTest, ConformanceTest, ConformanceTest];
    assert.deepEqual(first.output, { args: ['cat', '-n', 'hello.txt', '--long-option', '20', '--another', '1,2,3'] }, 'quoted numbers stay strings');
    assert.equal(first.doc, 'First test');
    assert.deepEqual([first.required, sub.required, untagged.required, wf.required], [true, false, true, false], 'no tags counts as required');
    assert.deepEqual([first.shouldFail, wf.shouldFail], [false, true]);
    assert.deepEqual(sub.output, { out: 'Any' });
    assert.equal(wf.output, undefined);
    const numbers = { big: 4200000000000000000000000000000000000000000n, small: 4242424242, float: 4.2e42, hex: 31 };
    assert.deepEqual(untagged.output, numbers, 'integers exact, as Python reads them');
    // A test file given directly: its directory is the root.
    assert.equal(loadSuite(join(root, 'conformance_tests.yaml')).tests.length, 4);
  });

  it("expands $import and $include inside an entry's output, against the file naming them", () => {
    const root = writeSuite(
      join(dir, 'directives'),
      '- $import: tests/sub/test-index.yaml\n',
      [
        '- id: imported_output',
        '  tool: tool.cwl',
        '  output: {$import: expected/out.json}',
        '- id: nested',
        '  tool: tool.cwl',
        '  output: {list: [{$import: expected/out.json}], text: {$include: expected/note.txt}}',
        '',
      ].join('\n'),
    );
    mkdirSync(join(root, 'tests', 'sub', 'expected'));
    // The imported file imports again, from its own directory; integers stay exact as in the index itself.
    writeFileSync(
      join(root, 'tests', 'sub', 'expected', 'out.json'),
      '{"names": ["a.txt", "b.txt"], "big": 4200000000000000000000000000000000000000000, "more": {"$import": "more.yml"}}',
    );
    writeFileSync(join(root, 'tests', 'sub', 'expected', 'more.yml'), 'n: 1\n');
    writeFileSync(join(root, 'tests', 'sub', 'expected', 'note.txt'), 'some text\n');
    const [imported, nested] = loadSuite(root).tests as [ConformanceTest, ConformanceTest];
    const expected = { names: ['a.txt', 'b.txt'], big: 4200000000000000000000000000000000000000000n, more: { n: 1 } };
    assert.deepEqual(imported.output, expected);
    assert.deepEqual(nested.output, { list: [expected], text: 'some text\n' });
    const bad = (name: string, output: string, message: RegExp) =>
      assert.throws(
        () => loadSuite(writeSuite(join(dir, name), '- $import: tests/sub/test-index.yaml\n', `- id: x\n  tool: t.cwl\n  output: ${output}\n`)),
        message,
      );
    bad('import-missing', '{$import: none.json}', /test-index\.yaml: entry 1: \$import none\.json: .*none\.json does not exist/);
    bad('import-extra', '{$import: none.json, other: 1}', /entry 1: \$import must be the only field, a file name/);
  });

  it('names the file and the entry of what it cannot read', () => {
    const bad = (name: string, main: string, message: RegExp, sub?: string) => assert.throws(() => loadSuite(writeSuite(join(dir, name), main, sub)), message);
    bad('no-tool', '- id: x\n  job: a.json\n', /conformance_tests\.yaml: entry 1: tool is missing/);
    bad('tags', '- id: x\n  tool: a.cwl\n  tags: required\n', /entry 1: tags must be a list of names/);
    bad('should-fail', '- id: x\n  tool: a.cwl\n  should_fail: maybe\n', /entry 1: should_fail must be true or false/);
    bad('twice', '- id: x\n  tool: a.cwl\n- id: x\n  tool: b.cwl\n', /test id x is used twice/);
    bad('mapping', 'id: x\ntool: a.cwl\n', /a conformance test file is a list of tests/);
    bad('missing-import', '- $import: tests/none.yaml\n', /entry 1: \$import tests\/none\.yaml: .*none\.yaml does not exist/);
    const loop = /test-index\.yaml: entry 1: \$import of .*test-index\.yaml imports itself/;
    bad('loop', '- $import: tests/sub/test-index.yaml\n', loop, '- $import: test-index.yaml\n');
    bad('yaml', '- id: [x\n', /conformance_tests\.yaml: /);
    assert.throws(() => loadSuite(join(dir, 'nowhere')), /nowhere does not exist/);
    mkdirSync(join(dir, 'empty'));
    assert.throws(() => loadSuite(join(dir, 'empty')), /holds no conformance_tests\.yaml/);
  });
});

describe('selecting tests', () => {
  const tests = (): ConformanceTest[] => loadSuite(writeSuite(join(dir, 'select'), MAIN)).tests;

  it('filters by tags first and numbers what is left, as --list shows it', () => {
    const numbered = numberTests(tests(), { tags: ['command_line_tool'] });
    assert.deepEqual(
      numbered.map((e) => [e.number, e.test.id]),
      [
        [1, 'cl_first'],
        [2, 'sub_one'],
      ],
    );
    assert.deepEqual(
      numberTests(tests(), { excludeTags: ['required', 'scatter'] }).map((e) => [e.number, e.test.id]),
      [
        [1, 'sub_one'],
        [2, 'sub_untagged'],
      ],
    );
    assert.throws(() => numberTests(tests(), { tags: ['requird'] }), /--tags: no test is tagged requird \(tags: command_line_tool, /);
  });

  it('picks by number and id, then leaves out by number and id', () => {
    const numbered = numberTests(tests(), {});
    const ids = (selection: Parameters<typeof selectTests>[1]) => selectTests(numbered, selection).map((e) => e.test.id);
    assert.deepEqual(ids({}), ['cl_first', 'sub_one', 'sub_untagged', 'wf_no_job']);
    assert.deepEqual(ids({ numbers: '1-2,4' }), ['cl_first', 'sub_one', 'wf_no_job']);
    assert.deepEqual(ids({ numbers: '3', ids: ['cl_first'] }), ['cl_first', 'sub_untagged']);
    assert.deepEqual(ids({ numbers: '1-4', excludeNumbers: '2', excludeIds: ['wf_no_job'] }), ['cl_first', 'sub_untagged']);
    assert.throws(() => ids({ ids: ['nope'] }), /--id: no test nope among the 4 tests/);
    assert.throws(() => ids({ excludeIds: ['nope'] }), /--exclude-id: no test nope/);
  });

  it('reads number ranges and refuses what is not one', () => {
    assert.deepEqual(parseRanges('5-7,15', '-n', 20), [5, 6, 7, 15]);
    assert.throws(() => parseRanges('1-x', '-n', 20), /-n: '1-x' is neither a test number nor a range/);
    assert.throws(() => parseRanges('0', '-n', 20), /-n: 0 is not within the tests 1-20/);
    assert.throws(() => parseRanges('19-21', '-N', 20), /-N: 19-21 is not within the tests 1-20/);
    assert.throws(() => parseRanges('7-5', '-n', 20), /7-5 is not within/);
  });
});

describe('the CWL v1.2 suite', () => {
  const suiteDir = defaultSuite();
  const skip = skipWithoutCwlSuite(suiteDir);
  it('loads 378 tests, 84 of them required, each with its CWL document and job on disk', { skip }, () => {
    const suite = loadSuite(suiteDir);
    assert.equal(suite.tests.length, 378);
    assert.equal(suite.tests.filter((t) => t.required).length, 84);
    assert.equal(new Set(suite.tests.map((t) => t.id)).size, 378);
    for (const test of suite.tests) {
      assert.ok(existsSync(join(suite.root, test.tool.split('#')[0]!)), `${test.id}: ${test.tool}`);
      if (test.job !== undefined) assert.ok(existsSync(join(suite.root, test.job)), `${test.id}: ${test.job}`);
      assert.ok(test.shouldFail || test.output !== undefined, `${test.id} expects an output`);
    }
    // An entry of an imported index, resolved from its own directory.
    const continuation = suite.tests.find((t) => t.id === 'continuation');
    assert.equal(continuation?.tool, 'tests/string-interpolation/bash-line-continuation.cwl');
    // A required test whose expected output is `{$import: compare-output.json}`: the file's object, not the directive.
    const nolimit = suite.tests.find((t) => t.id === 'cwloutput_nolimit')?.output as { filelist?: string[] } | undefined;
    assert.equal(nolimit?.filelist?.length, 9999);
    assert.equal(nolimit?.filelist?.[0], 'example_input_file1.txt');
  });
});
