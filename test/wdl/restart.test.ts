/** A WDL restart's rules (src/domain/wdl/run/restart.ts): which calls run again, and what each call's restart is. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadWdl } from '../../src/domain/wdl/index.js';
import { parseCommandText } from '../../src/domain/wdl/parser/command-text.js';
import { callRestart, callsToRerun } from '../../src/domain/wdl/run/restart.js';

const DOC = `version 1.1
task t {
  input {
    Int x = 0
    Array[Int] xs = []
  }
  command <<< echo ~{x} >>>
  output { Int y = x }
}
workflow w {
  input { Boolean go = true }
  call t as a
  call t as b
  Int doubled = a.y * 2
  call t as c { input: x = doubled }
  scatter (i in range(b.y)) {
    call t as inside { input: x = i }
  }
  if (go) {
    call t as maybe
  }
  if (c.y > 0) {
    call t as guarded
  }
  call t as later after maybe
  call t as gathered { input: xs = inside.y }
}
`;

describe('WDL restart rules', () => {
  const workflow = loadWdl({ main: DOC }).main.doc.workflow!;
  const rerun = (...named: string[]) => callsToRerun(workflow, named).sort();

  it('a call named runs again with every call that reads it, through declarations, scatters, conditions and after', () => {
    assert.deepEqual(rerun('a'), ['a', 'c', 'guarded']);
    assert.deepEqual(rerun('b'), ['b', 'gathered', 'inside']);
    assert.deepEqual(rerun('maybe'), ['later', 'maybe']);
    assert.deepEqual(rerun('inside'), ['gathered', 'inside']);
    assert.deepEqual(rerun('gathered'), ['gathered']);
    assert.deepEqual(rerun(), []);
  });

  it("a call's restart: run again when it or the subworkflow call holding it is named; changes only for the call named", () => {
    const restart = { fromTaskId: 'x', rerun: ['c', 'sub'], overrides: { c: { cpu: 2, command: 'echo hi' }, sub: { cpu: 4 } } };
    assert.deepEqual(callRestart(restart, 'w.c'), { rerun: true, override: { cpu: 2, command: 'echo hi' } });
    assert.deepEqual(callRestart(restart, 'w.a'), { rerun: false });
    assert.deepEqual(callRestart(restart, 'w.sub.c'), { rerun: true });
    assert.deepEqual(callRestart(undefined, 'w.c'), { rerun: false });
    assert.deepEqual(callRestart({ ...restart, overrides: {} }, 'w.constructor'), { rerun: false });
  });

  it('a replacement command is read as a <<< >>> command: ~{} is WDL, ${} and $x the shell', () => {
    const parts = parseCommandText('  cat ~{f} > out\n  echo ${HOME} $x', 'cmd');
    assert.equal(parts.length, 3);
    assert.equal(parts[0], 'cat ');
    assert.equal(parts[2], ' > out\necho ${HOME} $x');
    assert.throws(() => parseCommandText('echo >>> x', 'cmd'), /holds '>>>'/);
    assert.throws(() => parseCommandText('echo ~{f', 'cmd'), /cmd:1:/);
  });
});
