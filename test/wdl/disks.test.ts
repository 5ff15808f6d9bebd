/**
 * WDL's `disks` runtime key (src/domain/wdl/run/disks.ts, docs/wdl.md "Disks"): the 1.1 forms (Int GiB, "<size>",
 * "<size> <unit>", mount points, Array[String]) and Cromwell's 1.0 form ("local-disk 100 SSD", comma-joined), read
 * into the bytes a call asks for; malformed values refused with the file, line and column when the document is checked
 * (a literal) or when the call is prepared (a value computed from the task's inputs).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadWdl, taskCallPrefixes, WdlError } from '../../src/domain/wdl/index.js';
import { NO_FILES } from '../../src/domain/wdl/files.js';
import { diskMbOf, diskShortfall, DisksError, mountPointsRefusal, readDisks, runtimeDisksAsk } from '../../src/domain/wdl/run/disks.js';
import { checkRuntimeInput } from '../../src/domain/wdl/run/runtime.js';
import { prepareTask } from '../../src/domain/wdl/run/task.js';
import { array, bool, float, int, NONE, str, type WdlValue } from '../../src/domain/wdl/values.js';

const GiB = 2 ** 30;
const GB = 1e9;

describe('WDL disks: what a value asks for', () => {
  const cases: [string, WdlValue, number, string[]][] = [
    // WDL 1.1: an Int is GiB, a bare size is GiB, a unit is the spec's ("Units of Storage": GB decimal, GiB binary).
    ['Int GiB', int(10), 10 * GiB, []],
    ['bare size', str('2'), 2 * GiB, []],
    ['GiB', str('10 GiB'), 10 * GiB, []],
    ['GB is decimal', str('10 GB'), 10 * GB, []],
    ['unit without a space', str('10GiB'), 10 * GiB, []],
    ['units case-insensitive', str('10 gib'), 10 * GiB, []],
    ['short decimal unit', str('500 M'), 500e6, []],
    ['short binary unit', str('3 Ti'), 3 * 1024 * GiB, []],
    ['a decimal size', str('1.5 GiB'), 1.5 * GiB, []],
    ['bytes', str('1048576 B'), 2 ** 20, []],
    ['mount point, GiB', str('/mnt/outputs 500'), 500 * GiB, ['/mnt/outputs']],
    ['mount point, unit and type', str('/mnt/outputs 500 GiB HDD'), 500 * GiB, ['/mnt/outputs']],
    ['spec example: Array', array([str('2'), str('/mnt/outputs 4 GiB'), str('/mnt/tmp 1 GiB')]), 7 * GiB, ['/mnt/outputs', '/mnt/tmp']],
    // WDL 1.0 as Cromwell writes it: local-disk is the working directory, the size GiB, SSD/HDD a type gdflow ignores.
    ['Cromwell local-disk SSD', str('local-disk 100 SSD'), 100 * GiB, []],
    ['Cromwell local-disk HDD', str('local-disk 20 HDD'), 20 * GiB, []],
    ['Cromwell LOCAL type', str('local-disk 375 LOCAL'), 375 * GiB, []],
    ['Cromwell comma-joined', str('local-disk 10 SSD, /mnt/extra 5 HDD'), 15 * GiB, ['/mnt/extra']],
    ['zero', int(0), 0, []],
    ['an empty Array', array([]), 0, []],
  ];
  for (const [name, value, bytes, mountPoints] of cases) {
    it(name, () => {
      assert.deepEqual(readDisks(value), { bytes, mountPoints });
    });
  }

  it('None (an optional left out) asks nothing', () => {
    assert.equal(readDisks(NONE), undefined);
    assert.equal(diskMbOf(undefined), undefined);
  });

  it('is kept in MiB, rounded up, as a job keeps it', () => {
    assert.equal(diskMbOf(readDisks(str('10 GiB'))), 10240);
    assert.equal(diskMbOf(readDisks(str('10 GB'))), 9537); // 1e10 / 2^20 = 9536.7
    assert.equal(diskMbOf(readDisks(str('1 B'))), 1);
    assert.equal(diskMbOf(readDisks(int(0))), undefined);
  });

  const malformed: [string, WdlValue, RegExp][] = [
    ['a Float', float(10.5), /an Int \(GiB\), a String .* or an Array\[String\] of them, not a Float/],
    ['a Boolean', bool(true), /not a Boolean/],
    ['a negative Int', int(-1), /-1 is not a size/],
    ['an Array of Int', array([int(1)]), /an Array's items must be Strings/],
    ['no size', str('lots'), /'lots' is not a disk specification .*: 'lots' is not a size/],
    ['empty', str(''), /a specification is empty/],
    ['a trailing comma', str('10 GiB,'), /a specification is empty/],
    ['an unknown unit', str('10 XB'), /'XB' is not a unit of storage/],
    ['a unit and a word', str('10 GiB fast'), /'fast' is no unit of storage nor disk type/],
    ['a relative mount point', str('mnt/outputs 10 GiB'), /the mount point 'mnt\/outputs' is not an absolute path/],
    ['a mount point without a size', str('/mnt/outputs'), /it names no size/],
    ['a mount point going up', str('/mnt/../etc 1'), /the mount point \/mnt\/\.\.\/etc is not a normalised path/],
    ['a mount point with //', str('/mnt//x 1'), /the mount point \/mnt\/\/x is not a normalised path/],
    ['a mount point with .', str('/mnt/./x 1'), /the mount point \/mnt\/\.\/x is not a normalised path/],
    ['a mount point ending in /', str('/mnt/x/ 1'), /the mount point \/mnt\/x\/ is not a normalised path/],
    ['/ as a mount point', str('/ 1'), /the mount point \/ is the whole file system/],
    ['the working directory', str('/var/data 1'), /the mount point \/var\/data is the working directory \(\/var\/data\) or in it/],
    ['in the working directory', str('/var/data/x 1'), /the mount point \/var\/data\/x is the working directory \(\/var\/data\) or in it/],
    ['in /proc', str('/proc/x 1'), /the mount point \/proc\/x is in \/proc, a directory of the system no disk can be mounted on/],
    ['/sys', str('/sys 1'), /the mount point \/sys is in \/sys/],
    ['in /dev', str('/dev/shm 1'), /the mount point \/dev\/shm is in \/dev/],
    ['in /usr', str('/usr/local/x 1'), /the mount point \/usr\/local\/x is in \/usr/],
    ['a negative size', str('-5 GiB'), /'-5' is not a size \(a number, not negative/],
    ['two without a mount point', array([str('2'), str('local-disk 3 SSD')]), /at most one disk specification may leave out its mount point/],
    ['a mount point twice', str('/mnt/a 1, /mnt/a 2'), /the mount point \/mnt\/a is named twice/],
  ];
  for (const [name, value, message] of malformed) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => readDisks(value),
        (error: unknown) => error instanceof DisksError && message.test(error.message),
      );
    });
  }
});

const task = (runtime: string, inputs = '') => `version 1.1

task t {
  input {
${inputs}
  }
  command <<< echo hi >>>
  runtime {
    ${runtime}
  }
}
`;

describe('WDL disks in a document', () => {
  it('a malformed literal is refused when the document is checked, at its file, line and column', () => {
    for (const [runtime, message] of [
      ['disks: "10 parsecs"', /^main\.wdl:9:12: runtime disks: '10 parsecs' is not a disk specification .*'parsecs' is not a unit of storage/],
      ['disks: ["2", "3"]', /^main\.wdl:9:12: runtime disks: at most one disk specification may leave out its mount point/],
      ['disks: ["local-disk 10 SSD", "/mnt/x 1 GiB"]', undefined],
      ['disks: 2.5', /^main\.wdl:9:12: runtime disks must be an Int \(GiB\), a String .* or an Array\[String\], not Float/],
      ['disks: [1, 2]', /^main\.wdl:9:12: runtime disks must be .*, not Array\[Int\]\+/],
    ] as const) {
      if (message === undefined) {
        assert.ok(loadWdl({ main: task(runtime), mainName: 'main.wdl' }));
        continue;
      }
      assert.throws(
        () => loadWdl({ main: task(runtime), mainName: 'main.wdl' }),
        (error: unknown) => error instanceof WdlError && message.test(error.message),
        runtime,
      );
    }
  });

  it('1.1 requirements read disks as runtime does', () => {
    const doc = task('disks: "x"').replace('runtime {', 'requirements {');
    assert.throws(
      () => loadWdl({ main: doc, mainName: 'main.wdl' }),
      (error: unknown) => error instanceof WdlError && /^main\.wdl:9:12: runtime disks: 'x'/.test(error.message),
    );
  });

  const prepared = (runtime: string, inputs: string, given: Record<string, WdlValue>, json: Record<string, unknown> = {}) => {
    const bundle = loadWdl({ main: task(runtime, inputs), mainName: 'main.wdl' });
    const t = bundle.main.doc.tasks[0]!;
    const how = { structs: bundle.structs, files: NO_FILES, json: (name: string) => json[`t.${name}`], prefix: 't', stage: (v: WdlValue) => v };
    return prepareTask(t, new Map(Object.entries(given)), how).runtime;
  };

  it('a value computed from the inputs is read when the call is prepared, its position in the error', () => {
    assert.deepEqual(prepared('disks: "local-disk ~{n} HDD"', 'Int n', { n: int(3) }).disks, {
      mb: 3072,
      mountPoints: [],
      where: 'main.wdl:9:12',
    });
    assert.equal(prepared('disks: n', 'Int? n', {}).disks, undefined);
    assert.equal(prepared('cpu: 1', '', {}).disks, undefined);
    assert.throws(
      () => prepared('disks: "~{n} GiB"', 'String n', { n: str('ten') }),
      /^WdlRuntimeError: main\.wdl:9:12: runtime disks: 'ten GiB' is not a disk specification/,
    );
  });

  it("the inputs JSON's wf.call.runtime.disks replaces the document's, and is named when it cannot be read", () => {
    assert.deepEqual(prepared('disks: "/mnt/outputs 10 GiB"', '', {}, { 't.runtime.disks': 'local-disk 5 SSD' }).disks, {
      mb: 5120,
      mountPoints: [],
      where: "the inputs JSON's t.runtime.disks",
    });
    assert.deepEqual(prepared('cpu: 1', '', {}, { 't.runtime.disks': 1 }).disks, { mb: 1024, mountPoints: [], where: "the inputs JSON's t.runtime.disks" });
    assert.throws(
      () => prepared('disks: 1', '', {}, { 't.runtime.disks': '1 parsec' }),
      /^WdlRuntimeError: runtime disks \(the inputs JSON's t\.runtime\.disks\): '1 parsec' is not a disk specification/,
    );
    assert.doesNotThrow(() => checkRuntimeInput('disks', ['local-disk 1 SSD', '/mnt/x 2 GiB']));
    assert.doesNotThrow(() => checkRuntimeInput('someEngineHint', { any: 'thing' }));
    assert.throws(() => checkRuntimeInput('disks', 2.5), /^WdlRuntimeError: runtime disks: an Int \(GiB\), a String .* not a Float/);
    assert.throws(() => checkRuntimeInput('maxRetries', '2'), /^WdlRuntimeError: runtime maxRetries: an Int, 0 or more/);
    assert.throws(() => checkRuntimeInput('gpu', 'yes'), /^WdlRuntimeError: runtime gpu: a Boolean, not a String/);
  });

  it('an inputs JSON may set the runtime of every task call, at any depth: their prefixes', () => {
    const sub = 'version 1.0\ntask t { command <<< >>> }\nworkflow sub { scatter (x in [1]) { call t } }\n';
    const main = 'version 1.0\nimport "sub.wdl" as s\ntask u { command <<< >>> }\nworkflow main { call s.sub as inner\n if (true) { call u } }\n';
    const bundle = loadWdl({ main, mainName: 'main.wdl', files: { 'sub.wdl': sub } });
    assert.deepEqual([...taskCallPrefixes(bundle)].sort(), ['main.inner.t', 'main.u']);
    assert.deepEqual([...taskCallPrefixes(bundle, 'u')], ['u']);
  });

  it('a call with mount points on an executor without a sandbox, or asking more than the data root has free, is not started, and says why and where', () => {
    assert.equal(
      mountPointsRefusal('t', ['/mnt/outputs'], 'main.wdl:9:12'),
      'not started: task t asks for disks mounted at /mnt/outputs (runtime disks, main.wdl:9:12), and this executor has no sandbox to mount ' +
        'them in: the bwrap and podman executors (and Slurm wrapping jobs in them) provide mount points; here, ask for the size alone ' +
        '("4 GiB" or "local-disk 4 HDD"), which the working directory\'s disk must have free',
    );
    assert.equal(diskShortfall(1024, 2 ** 30, runtimeDisksAsk('main.wdl:9:12')), undefined);
    assert.equal(
      diskShortfall(100 * 1024, 20 * GiB, runtimeDisksAsk('main.wdl:9:12')),
      "not started: the task's runtime disks (main.wdl:9:12) ask 100.0 GiB of disk for this call, and gdflow's data root has 20.0 GiB free",
    );
  });
});
