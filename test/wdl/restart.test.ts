/** A WDL restart's rules (src/domain/wdl/run/restart.ts): which calls run again, and what each call's restart is. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadWdl } from '../../src/domain/wdl/index.js';
import { parseCommandText } from '../../src/domain/wdl/parser/command-text.js';
import { callSites, siteNamed } from '../../src/domain/wdl/run/call-sites.js';
import { diskShortfall } from '../../src/domain/wdl/run/disks.js';
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

/** A subworkflow (inner.wdl) called by outer, itself calling a subworkflow (deeper.wdl): names repeat at two depths. */
const DEEPER = `version 1.0
task t {
  input { Int x = 0 }
  command <<< echo ~{x} >>>
  output { Int y = x }
}
workflow inner {
  input { Int start = 0 }
  call t as stepA { input: x = start }
  call t as stepB { input: x = stepA.y }
  call t as side
  output { Int out = stepB.y }
}
`;

const INNER = `version 1.0
import "deeper.wdl" as d
task t {
  input { Int x = 0 }
  command <<< echo ~{x} >>>
  output { Int y = x }
}
workflow inner {
  input { Int start = 0 }
  call t as stepA { input: x = start }
  call t as stepB { input: x = stepA.y }
  call t as side
  call d.inner as deeper { input: start = stepB.y }
  output { Int out = stepB.y + deeper.out }
}
`;

const OUTER = `version 1.0
import "inner.wdl" as i
task t {
  input { Int x = 0 }
  command <<< echo ~{x} >>>
  output { Int y = x }
}
workflow outer {
  scatter (n in [1, 2]) {
    call t as prep { input: x = n }
  }
  call i.inner as qc { input: start = prep.y[0] }
  call t as report { input: x = qc.out }
}
`;

describe('WDL restart rules', () => {
  const main = loadWdl({ main: DOC }).main;
  const rerun = (...named: string[]) => callsToRerun(main, main.doc.workflow!, named).sort();

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

  describe('in subworkflows', () => {
    const nested = loadWdl({ main: OUTER, files: { 'inner.wdl': INNER, 'deeper.wdl': DEEPER } }).main;
    const outer = nested.doc.workflow!;
    const rerunNested = (...named: string[]) => callsToRerun(nested, outer, named).sort();
    const sites = callSites(nested, outer);
    const named = (name: string) => {
      const site = siteNamed(sites, 'outer', name);
      return 'refused' in site ? site.refused : site.path;
    };

    it('every call at any depth has a path; a job name, a path, or the workflow name and alias name it', () => {
      assert.deepEqual(
        sites.map((site) => site.path),
        ['prep', 'qc', 'qc.stepA', 'qc.stepB', 'qc.side', 'qc.deeper', 'qc.deeper.stepA', 'qc.deeper.stepB', 'qc.deeper.side', 'report'],
      );
      assert.equal(named('qc.stepA'), 'qc.stepA');
      assert.equal(named('outer.qc.stepA'), 'qc.stepA');
      assert.equal(named('qc.deeper.stepA[2]'), 'qc.deeper.stepA');
      assert.equal(named('deeper.side'), 'qc.deeper.side');
      assert.equal(named('prep[0]'), 'prep');
      assert.equal(named('report'), 'report');
      assert.match(named('stepA'), /^names 2 calls \(qc\.stepA, qc\.deeper\.stepA\): name one by its path$/);
      assert.match(named('inner.stepA'), /^names 2 calls/);
      assert.match(named('nope'), /^is no call of workflow outer \(its calls: prep, qc, qc\.stepA/);
      assert.match(named('qc.nope'), /^is no call/);
    });

    it('a call named inside a subworkflow runs again with what reads it there and, through its outputs, outside', () => {
      // stepB reads stepA; the subworkflow's output reads stepB; report reads qc's output.
      // deeper reads stepB: it runs again whole.
      assert.deepEqual(rerunNested('qc.stepA'), ['qc.deeper', 'qc.stepA', 'qc.stepB', 'report']);
      // side's outputs are no output of the subworkflow: nothing outside runs again.
      assert.deepEqual(rerunNested('qc.side'), ['qc.side']);
      // Two levels down: deeper's output changes, so qc's does, so report runs again; qc's other calls do not.
      assert.deepEqual(rerunNested('qc.deeper.stepB'), ['qc.deeper.stepB', 'report']);
      assert.deepEqual(rerunNested('qc.deeper.side'), ['qc.deeper.side']);
      // A subworkflow call named (or downstream of a call named) runs again whole.
      assert.deepEqual(rerunNested('qc'), ['qc', 'report']);
      assert.deepEqual(rerunNested('prep', 'qc.side'), ['prep', 'qc', 'report']);
    });

    it("a call's restart by its path: a call inside a subworkflow call run again whole runs again too", () => {
      const restart = { fromTaskId: 'x', rerun: ['qc.deeper', 'qc.stepA'], overrides: { 'qc.stepA': { cpu: 3 } } };
      assert.deepEqual(callRestart(restart, 'outer.qc.stepA'), { rerun: true, override: { cpu: 3 } });
      assert.deepEqual(callRestart(restart, 'outer.qc.deeper.side'), { rerun: true });
      assert.deepEqual(callRestart(restart, 'outer.qc.stepB'), { rerun: false });
      assert.deepEqual(callRestart(restart, 'outer.qc.deeperX'), { rerun: false });
    });
  });

  it("a disk asked for is refused only beyond the data root's free space, with a reason that says both", () => {
    assert.equal(diskShortfall(1024, 2 ** 30), undefined);
    assert.equal(
      diskShortfall(100 * 1024, 20 * 2 ** 30),
      "not started: the restart's debug_params ask 100.0 GiB of disk for this call, and gdflow's data root has 20.0 GiB free",
    );
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
