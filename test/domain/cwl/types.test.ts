import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bindInputs,
  coerceValue,
  CwlValidationError,
  describeType,
  FormatGraph,
  nameParts,
  type CwlIssue,
  type CwlType,
  type InputParameter,
} from '../../../src/domain/cwl/index.js';
import { loadProcess, TOOL, yaml } from './helpers.js';

const T = {
  int: { kind: 'int' },
  long: { kind: 'long' },
  float: { kind: 'float' },
  string: { kind: 'string' },
  boolean: { kind: 'boolean' },
  null: { kind: 'null' },
  File: { kind: 'File' },
  Directory: { kind: 'Directory' },
  Any: { kind: 'Any' },
} as const satisfies Record<string, CwlType>;

const array = (items: CwlType): CwlType => ({ kind: 'array', items });
const optional = (type: CwlType): CwlType => ({ kind: 'union', types: [T.null, type] });

/** The value coerced, or the messages of the issues. */
function coerce(type: CwlType, value: unknown): { value?: unknown; issues: string[] } {
  const issues: CwlIssue[] = [];
  const out = coerceValue(type, value, { path: 'inputs.x', at: undefined }, { issues });
  return out === undefined ? { issues: issues.map((i) => i.message) } : { value: out, issues: [] };
}

describe('CWL types: values against types', () => {
  it('checks primitives without converting between strings and numbers', () => {
    assert.deepEqual(coerce(T.int, 3), { value: 3, issues: [] });
    assert.deepEqual(coerce(T.int, 2 ** 31).issues, ['inputs.x: must be int, not the whole number 2147483648']);
    assert.deepEqual(coerce(T.long, 2 ** 40).value, 2 ** 40);
    assert.deepEqual(coerce(T.float, 3).value, 3);
    assert.deepEqual(coerce(T.int, '3').issues, ['inputs.x: must be int, not the string "3"']);
    assert.deepEqual(coerce(T.string, 3).issues, ['inputs.x: must be string, not the whole number 3']);
    assert.deepEqual(coerce(T.boolean, 'true').issues, ['inputs.x: must be boolean, not the string "true"']);
    assert.deepEqual(coerce(T.string, null).issues, ['inputs.x: is missing (null); expected string']);
  });

  it('keeps integers beyond 2^53 (bigints) exact: a long within 64 bits, a double of any size, never an int', () => {
    const huge = 4200000000000000000000000000000000000000000n;
    assert.deepEqual(coerce(T.long, 9223372036854775807n), { value: 9223372036854775807n, issues: [] });
    assert.deepEqual(coerce(T.long, 9223372036854775808n).issues, ['inputs.x: must be long, not the whole number 9223372036854775808']);
    assert.deepEqual(coerce(T.float, huge), { value: huge, issues: [] });
    assert.deepEqual(coerce({ kind: 'double' }, -huge), { value: -huge, issues: [] });
    assert.deepEqual(coerce(T.int, huge).issues, ['inputs.x: must be int, not the whole number 4200000000000000000000000000000000000000000']);
    assert.deepEqual(coerce(optional(T.int), 9007199254740993n).issues.length, 1);
  });

  it('Any takes any value but null; Files inside it are normalized', () => {
    assert.deepEqual(coerce(T.Any, { a: [1, { class: 'File', location: 'file:///d/x.txt' }] }).value, {
      a: [1, { class: 'File', location: 'file:///d/x.txt', basename: 'x.txt', nameroot: 'x', nameext: '.txt' }],
    });
    assert.deepEqual(coerce(T.Any, null).issues, ['inputs.x: is missing (null); expected Any']);
  });

  it('names the path inside arrays and records, and gives missing optional fields null', () => {
    const record: CwlType = {
      kind: 'record',
      fields: [
        { name: 'id', type: T.string, secondaryFiles: [], streamable: false },
        { name: 'reads', type: array(T.File), secondaryFiles: [], streamable: false },
        { name: 'note', type: optional(T.string), secondaryFiles: [], streamable: false },
      ],
    };
    const ok = coerce(record, { id: 's1', reads: [], extra: 'dropped' });
    assert.deepEqual(ok.value, { id: 's1', reads: [], note: null });
    const bad = coerce(array(record), [
      { id: 's1', reads: [] },
      { id: 's2', reads: [{ class: 'File', location: 'file:///a' }, 'b.fq'] },
    ]);
    assert.deepEqual(bad.issues, ['inputs.x[1].reads[1]: must be File, not the string "b.fq"']);
    assert.deepEqual(coerce(record, { reads: [] }).issues, ['inputs.x.id: is missing (null); expected string']);
  });

  it('compares enum symbols by short name (or full URI) and returns the short name', () => {
    const color: CwlType = {
      kind: 'enum',
      symbols: [
        { uri: 'file:///t.cwl#color/red', name: 'red' },
        { uri: 'file:///t.cwl#color/green', name: 'green' },
      ],
    };
    assert.equal(coerce(color, 'red').value, 'red');
    assert.equal(coerce(color, 'file:///t.cwl#color/green').value, 'green');
    assert.deepEqual(coerce(color, 'blue').issues, ['inputs.x: expected one of red, green, not the string "blue"']);
  });

  it('takes the first union member that matches, and reports the problem of the member of the same kind', () => {
    assert.equal(coerce({ kind: 'union', types: [T.int, T.string] }, 'x').value, 'x');
    assert.deepEqual(coerce({ kind: 'union', types: [T.string, T.File] }, { class: 'File' }).issues, ['inputs.x: a File needs a location, a path or contents']);
    assert.deepEqual(coerce({ kind: 'union', types: [T.int, T.string] }, true).issues, ['inputs.x: expected int | string, not boolean true']);
  });

  it('normalizes File and Directory objects', () => {
    assert.deepEqual(coerce(T.File, { class: 'File', path: '/data/reads.fq.gz', size: 12, checksum: 'sha1$ab', unknown: 1 }).value, {
      class: 'File',
      location: 'file:///data/reads.fq.gz',
      basename: 'reads.fq.gz',
      nameroot: 'reads.fq',
      nameext: '.gz',
      size: 12,
      checksum: 'sha1$ab',
    });
    assert.deepEqual(coerce(T.File, { class: 'File', location: 'file:///d/A%3AGln2Cys' }).value, {
      class: 'File',
      location: 'file:///d/A%3AGln2Cys',
      basename: 'A:Gln2Cys',
      nameroot: 'A:Gln2Cys',
      nameext: '',
    });
    assert.deepEqual(coerce(T.File, { class: 'File', basename: 'a.txt', contents: 'hello' }).value, {
      class: 'File',
      basename: 'a.txt',
      nameroot: 'a',
      nameext: '.txt',
      contents: 'hello',
    });
    assert.deepEqual(coerce(T.Directory, { class: 'Directory', basename: 'out', listing: [{ class: 'File', location: 'file:///x/y' }] }).value, {
      class: 'Directory',
      basename: 'out',
      listing: [{ class: 'File', location: 'file:///x/y', basename: 'y', nameroot: 'y', nameext: '' }],
    });
    assert.deepEqual(coerce(T.File, { class: 'File', location: 'file:///a', size: -1, basename: 'a/b' }).issues, [
      'inputs.x.basename: must be a file name without \'/\', not the string "a/b"',
      'inputs.x.size: must be a whole number of bytes, not the whole number -1',
    ]);
    assert.deepEqual(coerce(T.Directory, { class: 'Directory' }).issues, ['inputs.x: a Directory needs a location, a path or a listing']);
  });

  it('splits names as Python splitext does', () => {
    assert.deepEqual(
      ['a.b.c', '.bashrc', 'noext', '..a', '.a.b', 'foo.'].map((n) => nameParts(n)),
      [
        { nameroot: 'a.b', nameext: '.c' },
        { nameroot: '.bashrc', nameext: '' },
        { nameroot: 'noext', nameext: '' },
        { nameroot: '..a', nameext: '' },
        { nameroot: '.a', nameext: '.b' },
        { nameroot: 'foo', nameext: '.' },
      ],
    );
  });

  it('describes types for messages', () => {
    assert.deepEqual([optional(array(T.File)), array(optional(T.int)), { kind: 'union', types: [T.int, T.string, T.null] } as CwlType].map(describeType), [
      'File[]?',
      '(int?)[]',
      'int | string | null',
    ]);
  });
});

describe('CWL types: binding a job to the inputs', () => {
  const inputs = async (body: string): Promise<readonly InputParameter[]> => (await loadProcess({ 't.cwl': `${TOOL}${body}outputs: []\n` })).inputs;

  it('fills defaults, gives optional inputs null, takes the default for an explicit null, and drops undeclared names', async () => {
    const declared = await inputs('inputs:\n  n: {type: int, default: 4}\n  s: string?\n  f: {type: File, default: {class: File, location: a.txt}}\n');
    assert.deepEqual(bindInputs(declared, { n: null, extra: 1 }), {
      n: 4,
      s: null,
      f: { class: 'File', location: 'file:///w/a.txt', basename: 'a.txt', nameroot: 'a', nameext: '.txt' },
    });
  });

  it('reads integers beyond 2^53 of a document exactly and binds them', async () => {
    const declared = await inputs('inputs:\n  d: {type: double, default: 4200000000000000000000000000000000000000000}\n  l: long\n  n: int\n');
    assert.deepEqual(bindInputs(declared, { l: 9223372036854775807n, n: 7 }), {
      d: 4200000000000000000000000000000000000000000n,
      l: 9223372036854775807n,
      n: 7,
    });
  });

  it('reports a default that does not fit its type at the input that declares it', async () => {
    const declared = await inputs('inputs:\n  n: {type: int, default: x}\n');
    assert.throws(
      () => bindInputs(declared, {}),
      (error: unknown) =>
        error instanceof CwlValidationError &&
        error.issues[0]!.message === 'inputs.n (its default): must be int, not the string "x"' &&
        error.issues[0]!.at?.line === 4,
    );
  });

  it('reports every missing required input and wrong value at once, by path', async () => {
    const declared = await inputs('inputs:\n  reads: File[]\n  any: Any\n  k: int\n');
    assert.throws(
      () => bindInputs(declared, { reads: [{ class: 'File', location: 'file:///a' }, 7], k: 'x' }),
      (error: unknown) =>
        error instanceof CwlValidationError &&
        error.message ===
          [
            'inputs.any: missing required input of type Any',
            'inputs.k: must be int, not the string "x"',
            'inputs.reads[1]: must be File, not the whole number 7',
          ].join('\n'),
    );
  });

  it('checks File formats, in records too, exactly or through an ontology', async () => {
    const tool = await loadProcess({
      't.cwl': yaml`
        $namespaces: {edam: "http://edamontology.org/"}
        cwlVersion: v1.2
        class: CommandLineTool
        inputs:
          fa: {type: "File[]", format: edam:format_1929}
          rec:
            type:
              type: record
              fields:
                f: {type: File, format: edam:format_1930}
        outputs: []
      `,
    });
    const file = (format?: string): Record<string, unknown> => ({ class: 'File', location: 'file:///x', ...(format ? { format } : {}) });
    const job = {
      fa: [file('http://edamontology.org/format_1929'), file('http://edamontology.org/format_2330'), file()],
      rec: { f: file('http://edamontology.org/format_1929') },
    };
    assert.throws(
      () => bindInputs(tool.inputs, job),
      (error: unknown) =>
        error instanceof CwlValidationError &&
        error.issues.map((i) => i.message).join('\n') ===
          [
            'inputs.fa[1].format: http://edamontology.org/format_2330 is not http://edamontology.org/format_1929',
            'inputs.fa[2].format: the File has no format; expected http://edamontology.org/format_1929',
            'inputs.rec.f.format: http://edamontology.org/format_1929 is not http://edamontology.org/format_1930',
          ].join('\n'),
    );
    const ontology = new FormatGraph();
    ontology.read(
      yaml`
        @prefix edam: <http://edamontology.org/> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        edam:format_1929 rdfs:subClassOf edam:format_1930 .
      `,
    );
    assert.throws(
      () => bindInputs(tool.inputs, job, { ontology }),
      (error: unknown) => error instanceof CwlValidationError && error.issues.length === 2,
    );
  });
});

describe('CWL types: format ontologies', () => {
  it('reads subclasses and equivalent classes from RDF/XML and Turtle, transitively', () => {
    const graph = new FormatGraph();
    graph.read(
      yaml`
        <?xml version="1.0"?>
        <!DOCTYPE rdf:RDF [ <!ENTITY edam "http://edamontology.org/"> ]>
        <rdf:RDF xmlns:rdf="x" xmlns:rdfs="y" xmlns:owl="z">
          <owl:Class rdf:about="&edam;format_1929">
            <rdfs:label>FASTA</rdfs:label>
            <rdfs:subClassOf rdf:resource="&edam;format_2200"/>
            <!-- <rdfs:subClassOf rdf:resource="&edam;format_9999"/> -->
          </owl:Class>
          <owl:Class rdf:about="http://edamontology.org/format_2200">
            <rdfs:subClassOf rdf:resource="http://edamontology.org/format_2330"/>
          </owl:Class>
        </rdf:RDF>
      `,
    );
    graph.read(
      yaml`
        @prefix gx: <http://galaxyproject.org/formats/> .
        @prefix owl: <http://www.w3.org/2002/07/owl#> .
        gx:fasta a owl:Class ;
          owl:equivalentClass <http://edamontology.org/format_1929> .
      `,
    );
    assert.equal(graph.isSubclassOf('http://edamontology.org/format_1929', 'http://edamontology.org/format_2330'), true);
    assert.equal(graph.isSubclassOf('http://edamontology.org/format_1929', 'http://edamontology.org/format_9999'), false);
    assert.equal(graph.isSubclassOf('http://edamontology.org/format_1929', 'http://galaxyproject.org/formats/fasta'), true);
    assert.equal(graph.isSubclassOf('http://galaxyproject.org/formats/fasta', 'http://edamontology.org/format_2330'), true);
    assert.equal(graph.isSubclassOf('http://edamontology.org/format_2330', 'http://edamontology.org/format_1929'), false);
  });
});
