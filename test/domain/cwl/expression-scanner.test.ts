/** Finding `$(...)` and `${...}` in a string as CWL v1.2 says: nesting, quotes, escapes, unclosed expressions. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  containsExpression,
  ExpressionError,
  ExpressionSyntaxError,
  scanExpressions,
  usesLegacyEscapes,
  type ScannedPiece,
} from '../../../src/domain/cwl/expressions/index.js';

/** The pieces as short strings: text as it is, expressions as kind:code. */
const pieces = (text: string, legacyEscapes = false): string[] =>
  scanExpressions(text, { legacyEscapes }).map((piece: ScannedPiece) => (piece.kind === 'text' ? piece.text : `${piece.kind}:${piece.code}`));

describe('expression scanner', () => {
  it('finds expressions and function bodies among text, with where each starts', () => {
    assert.deepEqual(pieces('plain text'), ['plain text']);
    assert.deepEqual(pieces('a $(inputs.x) b ${ return 1; } c'), ['a ', 'expression:inputs.x', ' b ', 'body: return 1; ', ' c']);
    assert.deepEqual(scanExpressions('x=$(inputs.x)'), [
      { kind: 'text', text: 'x=' },
      { kind: 'expression', code: 'inputs.x', source: '$(inputs.x)', start: 2 },
    ]);
    assert.deepEqual(pieces('$(a)$(b)'), ['expression:a', 'expression:b']);
  });

  it('counts nested parentheses in $(...) and braces in ${...}, each only its own kind', () => {
    assert.deepEqual(pieces('$(f(g(1), (2)))!'), ['expression:f(g(1), (2))', '!']);
    assert.deepEqual(pieces('${ if (a) { return {b: 1}; } }.'), ['body: if (a) { return {b: 1}; } ', '.']);
    assert.deepEqual(pieces('$({a: 1}.a)'), ['expression:{a: 1}.a']);
    assert.deepEqual(pieces('${ return "(" + f(1 }'), ['body: return "(" + f(1 ']);
  });

  it('skips closing characters inside quoted strings, where a backslash escapes the next character', () => {
    assert.deepEqual(pieces('$(inputs.s + ")") end'), ['expression:inputs.s + ")"', ' end']);
    assert.deepEqual(pieces("${ return '}'; }"), ["body: return '}'; "]);
    assert.deepEqual(pieces('$("a\\")(" + 1)'), ['expression:"a\\")(" + 1']);
    assert.deepEqual(pieces('$("it\'s)")'), ['expression:"it\'s)"']);
  });

  it("applies v1.2's escapes: \\$( and \\${ are text, \\\\ is one backslash, other backslashes stay", () => {
    assert.deepEqual(pieces('\\$(inputs.x) and \\${x}'), ['$(inputs.x) and ${x}']);
    assert.deepEqual(pieces('a\\\\b $(x)'), ['a\\b ', 'expression:x']);
    assert.deepEqual(pieces('\\\\$(x)'), ['\\', 'expression:x'], 'an escaped backslash does not escape the $');
    assert.deepEqual(pieces('\\n \\t $(x)'), ['\\n \\t ', 'expression:x']);
    assert.deepEqual(pieces('$(x) ends with \\'), ['expression:x', ' ends with \\']);
    assert.deepEqual(pieces('cost: $5, $ (x), $x'), ['cost: $5, $ (x), $x']);
  });

  it('applies the escapes of v1.0 and v1.1 documents: a backslash keeps only the next character', () => {
    assert.deepEqual(pieces('\\$(x) \\n \\\\ $(y)', true), ['$(x) n \\ ', 'expression:y']);
    assert.equal(usesLegacyEscapes('v1.0'), true);
    assert.equal(usesLegacyEscapes('v1.1'), true);
    assert.equal(usesLegacyEscapes('v1.2.0-dev2'), true);
    assert.equal(usesLegacyEscapes('v1.2'), false);
  });

  it('refuses an expression that is never closed, saying which and where', () => {
    const unclosed = (text: string): ExpressionSyntaxError => {
      try {
        scanExpressions(text);
      } catch (error) {
        assert.ok(error instanceof ExpressionSyntaxError);
        return error;
      }
      assert.fail(`${text} scanned without error`);
    };
    const error = unclosed('x $(inputs.x');
    assert.equal(error.position, 2);
    assert.equal(error.message, "$(inputs.x failed: the expression that starts at character 3 is not closed: no ')' closes it");
    assert.ok(error instanceof ExpressionError, 'one error class to catch');
    assert.match(unclosed('${ return 1;').message, /no '}' closes it/);
    assert.match(unclosed('$(f(1)').message, /no '\)' closes it/);
    assert.match(unclosed('$(")').message, /a string in it, opened by ", is not closed/);
  });

  it('tells which values CWL interpolates', () => {
    assert.equal(containsExpression('a $(b)'), true);
    assert.equal(containsExpression('${ return 1 }'), true);
    assert.equal(containsExpression('$ {x} $x \\ (y)'), false);
    assert.equal(containsExpression(42), false);
  });
});
