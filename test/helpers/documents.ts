import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fixturePath } from './paths.js';

/** A sample document of test/fixtures (from the clients' examples) (copied to test/fixtures). */
export function fixture(name: string): any {
  return parse(readFileSync(fixturePath(name), 'utf8'));
}

/** A small valid tool definition with one input, one output and two parameters. */
export function simpleTool(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    alias: `${name} tool`,
    category: 'test',
    description: 'copies its input',
    homepage: '',
    tutorial: null,
    cmd_template: 'cp {{ inputs.reads[0].path }} {{ outputs.out[0].path }} # {{ parameters.label }} {{ parameters.threads }}',
    inputs: { reads: { type: 'file', formats: ['fastq', 'fq'], minitems: 1, maxitems: 1, required: true, hint: 'reads' } },
    outputs: { out: { type: 'file', formats: 'fastq', minitems: 1, maxitems: 1, required: true } },
    parameters: {
      label: { type: 'string', default: 'x', hint: 'a label' },
      threads: { type: 'integer', default: 2, minvalue: 1, maxvalue: 16, required: true },
    },
    requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '512m', disk: '1024m', network: false } },
    ...overrides,
  };
}

/** A cmd_template of `n` macros each calling the one before (m0 prints x): its render nests n calls deep. */
export function macroChain(n: number): string {
  const macros = Array.from({ length: n }, (_, i) => (i === 0 ? '{%macro m0()%}x{%endmacro%}' : `{%macro m${i}()%}{{m${i - 1}()}}{%endmacro%}`));
  return `${macros.join('')}{{ m${n - 1}() }}`;
}
