/** Parameter references without JavaScript: the grammar, CWL's lookup rules and the errors that name the expression. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  evaluateExpressionSync,
  ExpressionError,
  parseParameterReference,
  type ExpressionContext,
  type Json,
} from '../../../src/domain/cwl/expressions/index.js';

const context: ExpressionContext = {
  inputs: {
    n: 3,
    name: 'sample',
    missing: null,
    file: { class: 'File', basename: 'reads.fq', secondaryFiles: [{ class: 'File', basename: 'reads.fq.fai' }] },
    list: ['a', 'b', 'c'],
    counts: { length: 7 },
    'with space': 'spaced',
    "it's": 'quoted',
    名前: 'unicode',
  },
  self: [{ basename: 'out.txt' }, { basename: 'err.txt' }],
  runtime: { outdir: '/work/out', cores: 2 },
};

const value = (text: string): Json => evaluateExpressionSync(text, context);

function failure(text: string): ExpressionError {
  try {
    value(text);
  } catch (error) {
    assert.ok(error instanceof ExpressionError, `${text}: ${String(error)}`);
    return error;
  }
  assert.fail(`${text} evaluated without error`);
}

describe('parameter references', () => {
  it('parses symbols, quoted names and indexes, and nothing else', () => {
    assert.deepEqual(parseParameterReference("inputs.x.y['z'][0]"), { root: 'inputs', keys: ['x', 'y', 'z', 0] });
    assert.deepEqual(parseParameterReference('inputs["a b"].c_d'), { root: 'inputs', keys: ['a b', 'c_d'] });
    assert.deepEqual(parseParameterReference("inputs['it\\'s']"), { root: 'inputs', keys: ["it's"] });
    assert.deepEqual(parseParameterReference('null'), { root: 'null', keys: [] });
    for (const javascript of ['inputs.x + 1', 'inputs.x()', 'inputs[x]', 'inputs. x', 'inputs.x[-1]', ' inputs.x', "inputs['a\\n']", 'inputs.']) {
      assert.equal(parseParameterReference(javascript), undefined, javascript);
    }
  });

  it('resolves members, indexes and lengths to raw values', () => {
    assert.equal(value('$(inputs.n)'), 3);
    assert.equal(value('$(inputs.file.basename)'), 'reads.fq');
    assert.equal(value("$(inputs.file['secondaryFiles'][0].basename)"), 'reads.fq.fai');
    assert.deepEqual(value('$(inputs.file.secondaryFiles)'), [{ class: 'File', basename: 'reads.fq.fai' }]);
    assert.equal(value('$(inputs.list[2])'), 'c');
    assert.equal(value('$(inputs.list.length)'), 3);
    assert.equal(value("$(inputs.list['length'])"), 3);
    assert.equal(value('$(inputs.name.length)'), 6, 'a string has a length, as in JavaScript');
    assert.equal(value('$(inputs.name[1])'), 'a');
    assert.equal(value('$(inputs.counts.length)'), 7, "an object's own member called length");
    assert.equal(value('$(self.length)'), 2);
    assert.equal(value('$(self[1].basename)'), 'err.txt');
    assert.equal(value('$(runtime.outdir)'), '/work/out');
    assert.equal(value('$(inputs["with space"])'), 'spaced');
    assert.equal(value("$(inputs['it\\'s'])"), 'quoted');
    assert.equal(value('$(inputs.名前)'), 'unicode');
    assert.equal(value('$(inputs.missing)'), null);
    assert.equal(value('$(null)'), null);
  });

  it('fails with the expression and the reason when a value is not there', () => {
    const cases: [string, RegExp][] = [
      ['$(inputs.nothere)', /^\$\(inputs\.nothere\) failed: inputs has no member 'nothere'$/],
      ['$(inputs.missing.basename)', /inputs\.missing is null, which has no member 'basename'/],
      ['$(inputs.list[3])', /inputs\.list has 3 items, so \[3\] is out of range/],
      ['$(inputs.name[10])', /inputs\.name has 6 characters, so \[10\] is out of range/],
      ['$(inputs.file[0])', /inputs\.file is an object, which has no index \[0\]/],
      ['$(inputs.n.x)', /inputs\.n is the number 3, which has no member 'x'/],
      ['$(inputs.list.first)', /inputs\.list is a list, which has no member 'first'/],
      ['$(inputs.list.length.x)', /inputs\.list is a list, which has no member 'length'/],
      ['$(inputs.file.toString)', /inputs\.file has no member 'toString'/],
      ['$(inputs.constructor)', /inputs has no member 'constructor'/],
      ['$(outputs.x)', /outputs is not defined \(a parameter reference starts with inputs, self or runtime\)/],
      ['$(null.x)', /null has no members/],
    ];
    for (const [text, reason] of cases) {
      const error = failure(text);
      assert.match(error.message, reason, text);
      assert.equal(error.expression, text);
    }
  });

  it('refuses JavaScript without InlineJavascriptRequirement, naming the expression', () => {
    const error = failure('n+1 = $(inputs.n + 1)');
    assert.equal(error.expression, '$(inputs.n + 1)');
    assert.match(error.message, /is not a parameter reference .*InlineJavascriptRequirement/);
    assert.match(failure('${ return inputs.n; }').message, /^\$\{ return inputs\.n; \} failed: a \$\{\.\.\.\} function body is JavaScript/);
  });
});
