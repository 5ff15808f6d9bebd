/**
 * packDocument: a document and everything it runs as one CWL document that loads, without the files, to the same
 * process. Small multi-file documents written here, then every document of the conformance suite
 * (../shared/cwl-v1.2, or $GDFLOW_CWL_SUITE): packed, loaded again from memory, compared with the original load.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { defaultSuite } from '../../../scripts/cwl/options.js';
import { loadSuite } from '../../../scripts/cwl/suite.js';
import { CwlValidationError, InMemoryDocumentSource, loadDocument, packDocument, shortname, type CwlProcess } from '../../../src/domain/cwl/index.js';
import { FileDocumentSource } from '../../../src/engine/cwl/file-source.js';
import { stringifyExactJson } from '../../../src/contract/exact-json.js';
import { BASE, load, yaml } from './helpers.js';
import { skipWithoutCwlSuite } from '../../helpers/cwl-suite.js';

const PACKED = 'file:///packed/document.cwl';

/** The packed document loaded again from memory, as a server loads what a client sent. */
async function reload(document: Record<string, unknown>, process: string): Promise<CwlProcess> {
  const source = new InMemoryDocumentSource([[PACKED, stringifyExactJson(document)]]);
  return (await loadDocument(PACKED + process, source)).process;
}

const PROCESS_CLASSES = new Set(['CommandLineTool', 'ExpressionTool', 'Workflow', 'Operation']);

/**
 * A process as comparable JSON: positions left out, every identifier as its short name (the packed document names
 * files differently), the ids of processes (a file's name or `#main` once packed) and the stream names made from
 * them left out.
 */
function comparable(process: CwlProcess): unknown {
  return JSON.parse(
    JSON.stringify(process, function (this: Record<string, unknown>, key, value: unknown) {
      if (key === 'at') return undefined;
      // Integers beyond 2^53 (contract/exact-json.ts) compared by their digits.
      if (typeof value === 'bigint') return `${value}n`;
      if (typeof value !== 'string') return value;
      if (key === 'id' && PROCESS_CLASSES.has(String(this.class))) return '<process>';
      if (/^std(out|err)-[0-9a-f]{16}$/.test(value)) return '<stream>';
      return /^file:/.test(value) ? shortname(value) : value;
    }),
  );
}

async function assertSameAfterPacking(uri: string, source: InMemoryDocumentSource | FileDocumentSource): Promise<Record<string, unknown>> {
  const loaded = await loadDocument(uri, source);
  const packed = packDocument(loaded);
  const again = await reload(packed.document, packed.process);
  assert.deepEqual(comparable(again), comparable(loaded.process));
  return packed.document;
}

const TOOL = yaml`
  cwlVersion: v1.2
  class: CommandLineTool
  requirements:
    SchemaDefRequirement:
      types:
        - $import: types.yml
        - {name: Local, type: enum, symbols: [here, there]}
  inputs:
    sample: types.yml#Sample
    where: Local?
    mode: {type: "types.yml#Mode", default: fast}
    reference: {type: File, default: {class: File, location: data/ref.fa}}
  baseCommand: echo
  stdout: out.txt
  outputs:
    out: stdout
`;

const TYPES = yaml`
  - name: Sample
    type: record
    fields:
      reads: File
      label: string
  - name: Mode
    type: enum
    symbols: [fast, slow]
`;

const WORKFLOW = yaml`
  cwlVersion: v1.2
  class: Workflow
  requirements:
    InlineJavascriptRequirement:
      expressionLib:
        - $include: lib.js
    SchemaDefRequirement:
      types:
        - $import: types.yml
  inputs:
    sample: types.yml#Sample
  steps:
    first:
      run: tools/echo.cwl
      in: {sample: sample}
      out: [out]
    second:
      run: other/echo.cwl
      in: {sample: sample}
      out: [out]
    inline:
      run:
        class: ExpressionTool
        inputs: {x: File}
        outputs: {y: File}
        expression: '$({y: inputs.x})'
      in: {x: first/out}
      out: [y]
  outputs:
    result: {type: File, outputSource: inline/y}
`;

describe('packDocument', () => {
  it('makes one document of a workflow, the tools it runs, $import, $include and SchemaDefRequirement imports', async () => {
    const files = {
      'wf.cwl': WORKFLOW,
      'types.yml': TYPES,
      'lib.js': 'function twice(x) { return 2 * x; }\n',
      'tools/echo.cwl': TOOL.replace('types.yml', '../types.yml')
        .replace(/types\.yml#/g, '../types.yml#')
        .replace('data/ref.fa', '../data/ref.fa'),
      'other/echo.cwl': TOOL.replace(/types\.yml/g, '../types.yml').replace('data/ref.fa', '../data/ref.fa'),
    };
    const source = new InMemoryDocumentSource(Object.entries(files).map(([name, text]) => [BASE + name, text] as const));
    const document = await assertSameAfterPacking(`${BASE}wf.cwl`, source);
    const graph = document.$graph as Array<Record<string, unknown>>;
    // The workflow is #main; the two tools of the same file name get a name each; the inline tool stays in its step.
    assert.deepEqual(
      graph.map((p) => p.id),
      ['#main', '#echo.cwl', '#echo.cwl_2'],
    );
    const steps = graph[0]!.steps as Array<Record<string, unknown>>;
    assert.deepEqual(
      steps.map((s) => (typeof s.run === 'string' ? s.run : (s.run as { id: string }).id)),
      ['#echo.cwl', '#inline/run', '#echo.cwl_2'],
    );
    const text = stringifyExactJson(document);
    assert.doesNotMatch(text, /\$import|\$include|types\.yml#|file:\/\/\/w\/[^"]*\.cwl/, 'no directive and no reference to a file is left');
    assert.match(text, /function twice/, '$include is the file text');
    assert.match(text, /"#types\.yml\/Sample"/, 'imported types are named after their file');
    // A bare type name of a tool's own SchemaDefRequirement, found from that file's root, is absolute once packed.
    assert.match(text, /"type":\["null","#echo\.cwl\/Local"\]/);
    // File literals keep absolute locations, for the caller to upload.
    assert.match(text, /"location":"file:\/\/\/w\/data\/ref\.fa"/);
  });

  it('makes an entry of a packed document a document of its own, with what it runs, named #main', async () => {
    const files = {
      'wf.cwl': yaml`
        cwlVersion: v1.2
        class: Workflow
        requirements: {SubworkflowFeatureRequirement: {}}
        inputs: {msg: string}
        steps:
          inner: {run: inner.cwl, in: {msg: msg}, out: [out]}
        outputs: {out: {type: File, outputSource: inner/out}}
      `,
      'inner.cwl': yaml`
        cwlVersion: v1.2
        class: Workflow
        inputs: {msg: string}
        steps:
          say: {run: echo.cwl, in: {msg: msg}, out: [out]}
        outputs: {out: {type: File, outputSource: say/out}}
      `,
      'echo.cwl': yaml`
        cwlVersion: v1.2
        class: CommandLineTool
        inputs: {msg: {type: string, inputBinding: {position: 1}}}
        baseCommand: echo
        stdout: out.txt
        outputs: {out: stdout}
      `,
    };
    const source = new InMemoryDocumentSource(Object.entries(files).map(([name, text]) => [BASE + name, text] as const));
    const packed = packDocument(await loadDocument(`${BASE}wf.cwl`, source));
    const inMemory = new InMemoryDocumentSource([[PACKED, stringifyExactJson(packed.document)]]);
    // The sub-workflow alone: itself as #main and the tool it runs; not the workflow that ran it.
    const inner = await loadDocument(`${PACKED}#inner.cwl`, inMemory);
    const alone = packDocument(inner, { asMain: true });
    assert.equal(alone.process, '#main');
    assert.deepEqual(
      (alone.document.$graph as Array<{ id: string }>).map((p) => p.id),
      ['#main', '#echo.cwl'],
    );
    assert.deepEqual(comparable(await reload(alone.document, alone.process)), comparable(inner.process));
    // A tool that runs nothing is one process.
    const tool = packDocument(await loadDocument(`${PACKED}#echo.cwl`, inMemory), { asMain: true });
    assert.deepEqual(
      [tool.process, tool.document.class, tool.document.id, (tool.document.inputs as Array<{ id: string }>)[0]!.id],
      ['#main', 'CommandLineTool', '#main', '#main/msg'],
    );
    assert.deepEqual(comparable(await reload(tool.document, tool.process)), comparable((await loadDocument(`${PACKED}#echo.cwl`, inMemory)).process));
  });

  it('keeps the fragments of a $graph document and selects the process asked for', async () => {
    const files = {
      'packed.cwl': yaml`
        cwlVersion: v1.2
        $graph:
          - id: echo
            class: CommandLineTool
            inputs: {msg: string}
            baseCommand: echo
            outputs: {}
          - id: main
            class: Workflow
            inputs: {msg: string}
            steps:
              say: {run: "#echo", in: {msg: msg}, out: []}
            outputs: {}
      `,
    };
    const source = new InMemoryDocumentSource(Object.entries(files).map(([name, text]) => [BASE + name, text] as const));
    const whole = await assertSameAfterPacking(`${BASE}packed.cwl`, source);
    assert.deepEqual(
      (whole.$graph as Array<{ id: string }>).map((p) => p.id),
      ['#echo', '#main'],
    );
    const loaded = await loadDocument(`${BASE}packed.cwl#echo`, source);
    const tool = packDocument(loaded);
    assert.equal(tool.process, '#echo');
    assert.equal((await reload(tool.document, tool.process)).class, 'CommandLineTool');
  });

  it('writes a lone process as itself, named #main, and keeps the cwlVersion of each process', async () => {
    // The loaded file keeps its fragments (an input `x` is `#x`): its process alone is named.
    const lone = packDocument(await load({ 'tool.cwl': `cwlVersion: v1.2\nclass: CommandLineTool\ninputs: {x: int}\noutputs: {}\nbaseCommand: 'true'\n` }));
    assert.equal(lone.process, '#main');
    assert.equal(lone.document.class, 'CommandLineTool');
    assert.deepEqual(
      (lone.document.inputs as Array<{ id: string }>).map((i) => i.id),
      ['#x'],
    );
    const mixed = await load({
      'wf.cwl': `cwlVersion: v1.2\nclass: Workflow\ninputs: {}\noutputs: {}\nsteps:\n  a: {run: old.cwl, in: {}, out: []}\n`,
      'old.cwl': `cwlVersion: v1.0\nclass: CommandLineTool\ninputs: {}\noutputs: {}\nbaseCommand: 'true'\n`,
    });
    const packed = packDocument(mixed);
    assert.deepEqual(
      (packed.document.$graph as Array<Record<string, unknown>>).map((p) => [p.id, p.cwlVersion]),
      [
        ['#main', undefined],
        ['#old.cwl', 'v1.0'],
      ],
    );
    const again = await reload(packed.document, packed.process);
    assert.equal(again.class === 'Workflow' ? again.steps[0]?.run.cwlVersion : undefined, 'v1.0');
  });
});

describe('packDocument over the CWL v1.2 conformance suite', () => {
  const suiteDir = defaultSuite();
  const skip = skipWithoutCwlSuite(suiteDir);
  it('packs every document that loads into one that loads again to the same process', { skip }, async () => {
    const suite = loadSuite(suiteDir);
    const source = new FileDocumentSource();
    const failures: string[] = [];
    let packed = 0;
    for (const tool of new Set(suite.tests.map((t) => t.tool))) {
      const [path, fragment] = tool.split('#');
      const uri = pathToFileURL(join(suite.root, path!)).href + (fragment ? `#${fragment}` : '');
      try {
        await loadDocument(uri, source);
      } catch (error) {
        if (error instanceof CwlValidationError) continue; // an invalid document (a should_fail test): nothing to pack
        throw error;
      }
      try {
        await assertSameAfterPacking(uri, source);
        packed++;
      } catch (error) {
        failures.push(`${tool}: ${error instanceof Error ? error.message.slice(0, 2000) : String(error)}`);
      }
    }
    console.log(`${packed} documents of the suite packed and loaded again to the same process`);
    assert.deepEqual(failures, []);
    assert.ok(packed > 300, `only ${packed} documents packed`);
  });
});
