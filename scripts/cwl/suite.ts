import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { exactNumber } from './numbers.js';

/**
 * Loading a CWL conformance suite: the list of test entries of `conformance_tests.yaml` (cwltest's format), with the
 * entries of every `$import`ed file in place, and each `tool`/`job` resolved against the file that names it, as
 * schema-salad resolves them for cwltest. Paths are kept relative to the suite root, the directory runners run in.
 */

/** js-yaml's core types, which its type declarations do not list. */
const CORE_TYPES = (yaml as unknown as { types: { int: yaml.Type } }).types;

/**
 * YAML's core schema with integers read as numbers.ts reads them: exactly, as bigints beyond 2^53 (as Python reads
 * the suite). It takes the place of the core `int` type, as a type of the same tag does in js-yaml.
 */
const SUITE_SCHEMA = yaml.CORE_SCHEMA.extend({
  implicit: [
    new yaml.Type('tag:yaml.org,2002:int', {
      kind: 'scalar',
      resolve: (data: unknown) => CORE_TYPES.int.resolve(data),
      construct: (data: string) => {
        const value = CORE_TYPES.int.construct(data) as number;
        return Number.isSafeInteger(value) ? value : exactNumber(data);
      },
    }),
  ],
});

export interface ConformanceTest {
  /** Where the entry stands in the suite, imports expanded (1-based); `-n` numbers are counted after the tag filter. */
  position: number;
  id: string;
  doc: string;
  /** The CWL document, relative to the suite root, with its `#fragment` if it has one. */
  tool: string;
  /** The input object, relative to the suite root; undefined when the test runs without one. */
  job: string | undefined;
  /** The expected output object (cwltest's `output`); undefined for `should_fail` tests that give none. */
  output: unknown;
  shouldFail: boolean;
  tags: string[];
  /** cwltest treats an entry without tags as required: exit 33 is then a failure, not "unsupported". */
  required: boolean;
}

export interface Suite {
  /** The directory runners run in (the one holding the suite file). */
  root: string;
  file: string;
  tests: ConformanceTest[];
}

export class SuiteError extends Error {
  override name = 'SuiteError';
}

/** The suite file: `conformance_tests.yaml` in a directory, or a test index given as a file (cwltest's --test). */
export function suiteFile(path: string): string {
  const absolute = resolve(path);
  if (!existsSync(absolute)) throw new SuiteError(`${absolute} does not exist`);
  if (!statSync(absolute).isDirectory()) return absolute;
  const file = join(absolute, 'conformance_tests.yaml');
  if (!existsSync(file)) throw new SuiteError(`${absolute} holds no conformance_tests.yaml`);
  return file;
}

export function loadSuite(path: string): Suite {
  const file = suiteFile(path);
  const root = dirname(file);
  const tests: ConformanceTest[] = [];
  readEntries(file, root, tests, [file]);
  const seen = new Set<string>();
  for (const test of tests) {
    if (seen.has(test.id)) throw new SuiteError(`test id ${test.id} is used twice`);
    seen.add(test.id);
  }
  return { root, file, tests };
}

function readYaml(file: string): unknown {
  try {
    // js-yaml rather than the project's `yaml`: the suite indents some flow sequences less than YAML 1.2 asks (the
    // second line of `args: [tmap, ...]`), which ruamel (cwltest's parser) and js-yaml accept and `yaml` refuses.
    // The core schema keeps dates and the like as the strings they are to cwltest; SUITE_SCHEMA keeps large
    // integers exact.
    return yaml.load(readFileSync(file, 'utf8'), { schema: SUITE_SCHEMA, filename: file });
  } catch (error) {
    throw new SuiteError(`${file}: ${(error as Error).message}`);
  }
}

function readYamlList(file: string): unknown[] {
  const document = readYaml(file);
  if (!Array.isArray(document)) throw new SuiteError(`${file}: a conformance test file is a list of tests`);
  return document;
}

/**
 * schema-salad's directives inside an entry's values, as cwltest's loader expands them: `{$import: FILE}` is the
 * document FILE holds (YAML or JSON, its own directives expanded against its own place), `{$include: FILE}` its
 * text. cwloutput_nolimit (a required test) gives its expected output as `{$import: compare-output.json}`.
 */
function expandDirectives(value: unknown, base: string, where: string, importing: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => expandDirectives(item, base, where, importing));
  if (value === null || typeof value !== 'object') return value;
  const fields = value as Record<string, unknown>;
  for (const directive of ['$import', '$include'] as const) {
    if (!(directive in fields)) continue;
    const target = fields[directive];
    if (typeof target !== 'string' || Object.keys(fields).length !== 1) throw new SuiteError(`${where}: ${directive} must be the only field, a file name`);
    const file = referencedPath(target, base);
    if (!existsSync(file)) throw new SuiteError(`${where}: ${directive} ${target}: ${file} does not exist`);
    if (directive === '$include') return readFileSync(file, 'utf8');
    if (importing.includes(file)) throw new SuiteError(`${where}: $import of ${file} imports itself`);
    return expandDirectives(readYaml(file), dirname(file), where, [...importing, file]);
  }
  return Object.fromEntries(Object.entries(fields).map(([key, item]) => [key, expandDirectives(item, base, where, importing)]));
}

function readEntries(file: string, root: string, into: ConformanceTest[], importing: string[]): void {
  readYamlList(file).forEach((entry, index) => {
    const where = `${file}: entry ${index + 1}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new SuiteError(`${where} is not a mapping`);
    const fields = entry as Record<string, unknown>;
    if ('$import' in fields) {
      const target = fields.$import;
      if (typeof target !== 'string') throw new SuiteError(`${where}: $import must be a file name`);
      const imported = referencedPath(target, dirname(file));
      if (importing.includes(imported)) throw new SuiteError(`${where}: $import of ${imported} imports itself`);
      if (!existsSync(imported)) throw new SuiteError(`${where}: $import ${target}: ${imported} does not exist`);
      readEntries(imported, root, into, [...importing, imported]);
      return;
    }
    into.push(readTest(fields, where, dirname(file), root, into.length + 1));
  });
}

function readTest(fields: Record<string, unknown>, where: string, base: string, root: string, position: number): ConformanceTest {
  const text = (name: string): string | undefined => {
    const value = fields[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new SuiteError(`${where}: ${name} must be a string`);
    return value;
  };
  const tool = text('tool');
  if (tool === undefined) throw new SuiteError(`${where}: tool is missing`);
  const job = text('job');
  const tags = fields.tags;
  if (tags !== undefined && tags !== null && !(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string'))) {
    throw new SuiteError(`${where}: tags must be a list of names`);
  }
  const shouldFail = fields.should_fail ?? false;
  if (typeof shouldFail !== 'boolean') throw new SuiteError(`${where}: should_fail must be true or false`);
  const id = text('id') ?? text('label') ?? `test-${position}`;
  return {
    position,
    id,
    doc: (text('doc') ?? '').replace(/\s+/g, ' ').trim(),
    tool: suiteRelative(tool, base, root),
    job: job === undefined ? undefined : suiteRelative(job, base, root),
    output: expandDirectives(fields.output, base, where, []) ?? undefined,
    shouldFail,
    tags: tags ?? [],
    required: tags === undefined || tags === null || tags.includes('required'),
  };
}

/** A reference (relative path, absolute path or file: URI) as an absolute path, without its fragment. */
function referencedPath(reference: string, base: string): string {
  const path = reference.split('#')[0]!;
  if (path.startsWith('file:')) return fileURLToPath(path);
  return isAbsolute(path) ? path : resolve(base, path);
}

/** A document reference resolved against the file naming it, then written relative to the suite root. */
function suiteRelative(reference: string, base: string, root: string): string {
  const hash = reference.indexOf('#');
  const fragment = hash < 0 ? '' : reference.slice(hash);
  return relative(root, referencedPath(reference, base)) + fragment;
}
