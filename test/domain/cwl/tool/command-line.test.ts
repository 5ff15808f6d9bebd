import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ToolRunError } from '../../../../src/domain/cwl/tool/index.js';
import { TOOL, yaml } from '../helpers.js';
import { fileAt, prepare, tempTree } from './helpers.js';

/** The words a shell command string gives a program: run through /bin/sh with printf printing each one. */
function wordsThroughShell(command: string): string[] {
  const result = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.split('\0').slice(0, -1);
}

describe('CWL CommandLineTool: the command line', () => {
  it('orders baseCommand, then arguments and inputs by position, arguments first at a tie, inputs by name', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: [tool, sub]
        arguments: [{valueFrom: arg2, position: 2}, first, {valueFrom: arg-1, position: -1}]
        inputs:
          b: {type: string, inputBinding: {position: 2}}
          a: {type: string, inputBinding: {position: 2}}
          c: {type: string, inputBinding: {}}
          unbound: string
        outputs: []
        `,
      { a: 'A', b: 'B', c: 'C', unbound: 'never' },
    );
    assert.deepEqual(run.argv, ['tool', 'sub', 'arg-1', 'first', 'C', 'arg2', 'A', 'B']);
  });

  it('applies prefix, separate, itemSeparator, and item bindings of arrays', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cmd
        inputs:
          joined: {type: 'int[]', inputBinding: {position: 1, prefix: -I, itemSeparator: ','}}
          glued: {type: string, inputBinding: {position: 2, prefix: --name=, separate: false}}
          each: {type: {type: array, items: string, inputBinding: {prefix: -e}}, inputBinding: {position: 3, prefix: --each}}
          plain: {type: 'string[]', inputBinding: {position: 4, prefix: -p}}
          empty: {type: 'string[]', inputBinding: {position: 5, prefix: -x}}
        outputs: []
        `,
      { joined: [1, 2, 3], glued: 'x y', each: ['a', 'b'], plain: ['p', 'q'], empty: [] },
    );
    assert.deepEqual(run.argv, ['cmd', '-I', '1,2,3', '--name=x y', '--each', '-e', 'a', '-e', 'b', '-p', 'p', 'q']);
  });

  it('binds booleans as their prefix or nothing, and leaves out null and missing optional inputs', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cmd
        inputs:
          yes: {type: boolean, inputBinding: {prefix: --yes}}
          no: {type: boolean, inputBinding: {prefix: --no}}
          bare: {type: boolean, inputBinding: {}}
          missing: {type: 'string?', inputBinding: {prefix: --missing}}
          nothing: {type: 'int?', inputBinding: {prefix: --nothing}}
        outputs: []
        `,
      { yes: true, no: false, bare: true, nothing: null },
    );
    assert.deepEqual(run.argv, ['cmd', '--yes']);
  });

  it("binds record fields in their own order, after the record's own binding", async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cmd
        inputs:
          first: {type: string, inputBinding: {position: 1}}
          opts:
            type:
              type: record
              fields:
                z: {type: int, inputBinding: {position: 1, prefix: -z}}
                a: {type: int, inputBinding: {position: 2, prefix: -a}}
                skipped: {type: 'int?', inputBinding: {prefix: -s}}
            inputBinding: {position: 2, prefix: --opts}
          last: {type: string, inputBinding: {position: 3}}
        outputs: []
        `,
      { first: 'F', opts: { z: 26, a: 1 }, last: 'L' },
    );
    // The record's own binding sorts before its fields ([2, 'opts'] before [2, 'opts', 1, 'z']), as in cwltool.
    assert.deepEqual(run.argv, ['cmd', 'F', '--opts', '-z', '26', '-a', '1', 'L']);
  });

  it('evaluates valueFrom with self the value, and a constant valueFrom replaces it', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cmd
        requirements: {InlineJavascriptRequirement: {}}
        inputs:
          n: {type: int, inputBinding: {position: 1, prefix: -n, valueFrom: $(self * 2)}}
          list: {type: 'string[]', inputBinding: {position: 2, valueFrom: constant}}
          upper: {type: 'string[]', inputBinding: {position: 3, valueFrom: '$(self.map(function(s) { return s.toUpperCase(); }))'}}
        outputs: []
        `,
      { n: 21, list: ['a', 'b'], upper: ['x', 'y'] },
    );
    assert.deepEqual(run.argv, ['cmd', '-n', '42', 'constant', 'X', 'Y']);
  });

  it('writes numbers in plain decimal notation, and Files as their staged paths', async () => {
    const dir = tempTree({ 'reads.fq': '@r\nACGT\n+\n!!!!\n' });
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cmd
        inputs:
          small: {type: double, inputBinding: {position: 1}}
          big: {type: double, inputBinding: {position: 2}}
          reads: {type: File, inputBinding: {position: 3, prefix: --reads}}
        outputs: []
        `,
      { small: 0.0000123, big: 1.23e5, reads: fileAt(`${dir}/reads.fq`) },
    );
    assert.deepEqual(run.argv, ['cmd', '0.0000123', '123000', '--reads', '/var/lib/cwl/inputs/1/reads.fq']);
  });

  it('evaluates position expressions (v1.1 on), with self the value', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cmd
        inputs:
          late: {type: int, inputBinding: {position: $(self)}}
          early: {type: int, inputBinding: {position: 1}}
        outputs: []
        `,
      { late: 5, early: 7 },
    );
    assert.deepEqual(run.argv, ['cmd', '7', '5']);
    await assert.rejects(
      prepare(TOOL + 'baseCommand: cmd\ninputs:\n  s: {type: string, inputBinding: {position: $(self)}}\noutputs: []\n', { s: 'x' }),
      (error: Error) => error instanceof ToolRunError && /position/.test(error.message),
    );
  });

  it('binds a union value with the binding of the member it matches', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: cmd
        inputs:
          either:
            type:
              - string
              - {type: array, items: string, inputBinding: {prefix: -i}}
            inputBinding: {prefix: --either}
        outputs: []
        `,
      { either: ['a', 'b'] },
    );
    assert.deepEqual(run.argv, ['cmd', '--either', '-i', 'a', '-i', 'b']);
  });

  it('quotes every word of the shell command so that /bin/sh runs exactly the argv', async () => {
    const awkward = ["it's", 'a b', '$HOME', '`id`', '"q"', '\\', '*', '', 'ü', '; rm -rf /'];
    const run = await prepare(
      TOOL +
        yaml`
        baseCommand: [printf, '%s\\0']
        inputs:
          words: {type: 'string[]', inputBinding: {}}
        outputs: []
        `,
      { words: awkward },
    );
    assert.equal(run.shell, false);
    assert.deepEqual(run.argv.slice(2), awkward);
    assert.deepEqual(wordsThroughShell(run.command), awkward);
  });

  it('quotes a first word the shell would read as a keyword or an assignment', async () => {
    for (const word of ['if', 'A=b']) {
      const run = await prepare(TOOL + `baseCommand: ['${word}']\ninputs: []\noutputs: []\n`);
      assert.equal(run.command, `'${word}'`);
    }
  });

  it('with ShellCommandRequirement, passes words with shellQuote false as they are and quotes the rest', async () => {
    const run = await prepare(
      TOOL +
        yaml`
        requirements: {ShellCommandRequirement: {}}
        arguments:
          - {valueFrom: printf, position: 1}
          - {valueFrom: '%s\\0', position: 2}
          - {valueFrom: 'a b', position: 3}
          - {valueFrom: '| tr a-z A-Z', position: 4, shellQuote: false}
        inputs:
          text: {type: string, inputBinding: {position: 3}}
        outputs: []
        `,
      { text: "c'd" },
    );
    assert.equal(run.shell, true);
    assert.equal(run.command, "printf '%s\\0' 'a b' 'c'\\''d' | tr a-z A-Z");
    assert.deepEqual(run.argv, ['/bin/sh', '-c', run.command]);
    assert.deepEqual(wordsThroughShell(run.command), ['A B', "C'D"]);
  });
});
