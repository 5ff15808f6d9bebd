/** The WDL front end (src/domain/wdl): parsing, type checking, expressions and the standard library, table-driven. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate } from '../../src/domain/wdl/eval.js';
import { inputsTemplate, loadWdl, WdlError } from '../../src/domain/wdl/index.js';
import { ExpressionParser } from '../../src/domain/wdl/parser/expressions.js';
import { Scanner } from '../../src/domain/wdl/parser/scanner.js';
import { renderCommand } from '../../src/domain/wdl/run/shell.js';
import { toJson, type WdlValue } from '../../src/domain/wdl/values.js';
import type { WdlFiles } from '../../src/domain/wdl/files.js';

/** Files in memory: what read_* read and write_* write. */
function memoryFiles(initial: Record<string, string> = {}): WdlFiles {
  const files = new Map(Object.entries(initial));
  return {
    read: (path) => files.get(path) ?? assert.fail(`no file ${path}`),
    write: (hint, text) => {
      const path = `/tmp/${hint}_${files.size}`;
      files.set(path, text);
      return path;
    },
    glob: () => [],
    size: (path) => Buffer.byteLength(files.get(path) ?? assert.fail(`no file ${path}`)),
  };
}

function evalText(text: string, names: Record<string, WdlValue> = {}, files = memoryFiles()): unknown {
  const expr = new ExpressionParser(new Scanner(text, 'expr')).expression();
  return toJson(evaluate(expr, { lookup: (n) => names[n], structs: new Map(), files }));
}

describe('WDL expressions and the standard library', () => {
  const cases: [string, unknown][] = [
    ['1 + 2 * 3', 7],
    ['7 / 2', 3],
    ['7.0 / 2', 3.5],
    ['"a" + "b"', 'ab'],
    ['if 1 < 2 then "y" else "n"', 'y'],
    ['[1, 2, 3][1]', 2],
    ['{"a": 1}["a"]', 1],
    ['(1, "x").right', 'x'],
    ['length([1, 2, 3])', 3],
    ['select_first([None, 5, 6])', 5],
    ['select_all([None, 5, None, 6])', [5, 6]],
    ['defined(None)', false],
    ['flatten([[1], [2, 3]])', [1, 2, 3]],
    ['range(3)', [0, 1, 2]],
    [
      'zip([1, 2], ["a", "b"])',
      [
        { left: 1, right: 'a' },
        { left: 2, right: 'b' },
      ],
    ],
    [
      'cross([1, 2], ["a"])',
      [
        { left: 1, right: 'a' },
        { left: 2, right: 'a' },
      ],
    ],
    [
      'transpose([[1, 2], [3, 4]])',
      [
        [1, 3],
        [2, 4],
      ],
    ],
    ['prefix("-f ", [1, 2])', ['-f 1', '-f 2']],
    ['suffix(".txt", ["a"])', ['a.txt']],
    ['quote([1])', ['"1"']],
    ['squote(["a"])', ["'a'"]],
    ['sep(",", [1, 2])', '1,2'],
    ['sub("aaa", "a+", "b")', 'b'],
    ['sub("a.b", "\\\\.", "$")', 'a$b'],
    ['basename("/x/y/z.txt", ".txt")', 'z'],
    ['as_map([("a", 1), ("b", 2)])', { a: 1, b: 2 }],
    ['as_pairs({"a": 1})', [{ left: 'a', right: 1 }]],
    ['keys({"a": 1, "b": 2})', ['a', 'b']],
    ['contains_key({"a": 1}, "a")', true],
    ['collect_by_key([("a", 1), ("b", 2), ("a", 3)])', { a: [1, 3], b: [2] }],
    ['min(1, 2.5)', 1],
    ['max(1, 2)', 2],
    ['floor(2.7)', 2],
    ['ceil(2.1)', 3],
    ['round(2.5)', 3],
    ['"~{1 + 1} and ${"x"}"', '2 and x'],
    ['"~{sep=", " [1, 2]}"', '1, 2'],
    ['"~{true="yes" false="no" 1 == 1}"', 'yes'],
    ['"[~{default="d" None}]"', '[d]'],
    ['"\\t\\x41\\u0042"', '\tAB'],
  ];
  for (const [text, expected] of cases) it(text, () => assert.deepEqual(evalText(text), expected));

  it('read_* and write_* go through the injected file system', () => {
    const files = memoryFiles({ '/in/n.txt': '42\n', '/in/lines.txt': 'a\nb\n', '/in/t.tsv': 'a\tb\nc\td\n', '/in/j.json': '{"x": [1, 2.5]}' });
    assert.equal(evalText('read_int("/in/n.txt")', {}, files), 42);
    assert.deepEqual(evalText('read_lines("/in/lines.txt")', {}, files), ['a', 'b']);
    assert.deepEqual(evalText('read_tsv("/in/t.tsv")', {}, files), [
      ['a', 'b'],
      ['c', 'd'],
    ]);
    assert.deepEqual(evalText('read_map("/in/t.tsv")', {}, files), { a: 'b', c: 'd' });
    assert.deepEqual(evalText('read_json("/in/j.json")', {}, files), { x: [1, 2.5] });
    assert.deepEqual(evalText('read_lines(write_lines(["x", "y"]))', {}, files), ['x', 'y']);
    assert.equal(evalText('size("/in/n.txt")', {}, files), 3);
  });

  const failures: [string, RegExp][] = [
    ['[1][3]', /index 3 is out of the bounds/],
    ['1 / 0', /division by zero/],
    ['select_first([None])', /no defined value/],
    ['as_map([("a", 1), ("a", 2)])', /twice/],
    ['zip([1], [1, 2])', /same length/],
    ['nope(1)', /unknown function 'nope'/],
    ['write_json((1, {2: "hello"}))', /a Map with Int keys cannot be written as JSON/],
  ];
  for (const [text, message] of failures) it(`${text} fails`, () => assert.throws(() => evalText(text), message));
});

describe('WDL documents: parse and type errors name the file, line and column', () => {
  const bad: [string, string, RegExp][] = [
    ['no version', 'task t { command <<< >>> }', /main\.wdl:1:1: expected 'version 1\.0'/],
    ['an undeclared name', 'version 1.1\nworkflow w {\n  Int x = y\n}', /main\.wdl:3:11: 'y' is not declared here/],
    ['a String for an Int', 'version 1.1\nworkflow w {\n  Int x = [1]\n}', /main\.wdl:3:11: 'x' is declared Int, but its value is Array\[Int\]\+/],
    ['an unknown task', 'version 1.1\nworkflow w {\n  call nope\n}', /main\.wdl:3:3: no task or workflow 'nope'/],
    [
      'an unknown call input',
      'version 1.1\ntask t { input { Int a } command <<< >>> }\nworkflow w {\n  call t { input: b = 1 }\n}',
      /main\.wdl:4:23: 't' has no input 'b'/,
    ],
    ['an unclosed command', 'version 1.1\ntask t {\n  command <<<\n echo', /main\.wdl:3:11: this command is not closed/],
    ['an import that is not there', 'version 1.1\nimport "lib.wdl"\n', /main\.wdl:2:1: import 'lib\.wdl': no file lib\.wdl/],
    ['a duplicate name', 'version 1.1\nworkflow w {\n  Int x = 1\n  Int x = 2\n}', /'x' is declared twice/],
    // Spec "Type Coercion": no String to Int, Float or Boolean (only read_lines() may be read as numbers).
    ['"a" for an Int', 'version 1.1\nworkflow w {\n  Int x = "a"\n}', /main\.wdl:3:11: 'x' is declared Int, but its value is String/],
    ['a String for a Float', 'version 1.1\nworkflow w {\n  Float x = "1.5"\n}', /main\.wdl:3:13: 'x' is declared Float, but its value is String/],
    [
      'a String for a call input of type Boolean',
      'version 1.1\ntask t { input { Boolean b } command <<< >>> }\nworkflow w {\n  call t { input: b = "true" }\n}',
      /main\.wdl:4:23: input 'b' of 't' is Boolean, not String/,
    ],
    // Spec Appendix B "Cyclic References".
    ['declarations that read each other', 'version 1.1\nworkflow w {\n  Int i = j + 1\n  Int j = i - 2\n}', /main\.wdl:3:3: 'i' -> 'j' -> 'i' read each other/],
    ['a declaration that reads itself', 'version 1.1\nworkflow w {\n  Int i = i + 1\n}', /main\.wdl:3:3: 'i' reads itself/],
    [
      'a call and an input default that read each other',
      'version 1.1\ntask t { input { Int a } command <<< >>> output { Int b = a } }\nworkflow w {\n  input { Int y = c.b }\n  call t as c { input: a = y }\n}',
      /main\.wdl:4:11: 'y' -> call 'c' -> 'y' read each other/,
    ],
    [
      'a cycle inside a scatter',
      'version 1.1\nworkflow w {\n  scatter (k in [1]) {\n    Int a = b\n    Int b = a\n  }\n}',
      /main\.wdl:4:5: 'a' -> 'b' -> 'a' read each other/,
    ],
  ];
  for (const [what, text, message] of bad) {
    it(what, () => {
      assert.throws(
        () => loadWdl({ main: text }),
        (error: unknown) => error instanceof WdlError && message.test(error.message),
      );
    });
  }

  it('read_lines() may be declared an Array of numbers, and an Int a String', () => {
    const doc = 'version 1.1\ntask t { command <<< >>> output { Array[Int] n = read_lines(stdout())  String s = 3 } }';
    assert.equal(loadWdl({ main: doc }).main.doc.tasks[0]!.outputs.length, 2);
  });

  it('imports with aliases, structs, scatter, if, after and the inputs template', () => {
    const lib =
      'version 1.1\nstruct P { String name Int? age }\ntask greet { input { P p String greeting = "hi" } command <<< echo ~{greeting} ~{p.name} >>> output { String out = read_string(stdout()) } }';
    const main = `version 1.1
import "lib/lib.wdl" as lib alias P as Person
workflow w {
  input { Array[Person] people  Int n = 3  String? note }
  scatter (p in people) { call lib.greet as g { input: p = p } }
  if (n > 2) { call lib.greet as again after g { input: p = people[0], greeting = "again" } }
  output { Array[String] outs = g.out  String? last = again.out }
}`;
    const bundle = loadWdl({ main, files: { 'lib/lib.wdl': lib } });
    assert.equal(bundle.workflowName, 'w');
    assert.deepEqual(inputsTemplate(bundle), {
      'w.people': 'Array[Person]',
      'w.n': 'Int (optional, default = 3)',
      'w.note': 'String? (optional)',
      'w.g.greeting': 'String (optional, default = "hi")',
    });
  });
});

describe('WDL command placeholders are quoted for their place in the shell', () => {
  const evil = `a'b"c$(x)\`y\` ;z`;
  const cases: [string, string][] = [
    ['echo ~{s}', `echo 'a'\\''b"c$(x)\`y\` ;z'`],
    ["echo '~{s}'", `echo 'a'\\''b"c$(x)\`y\` ;z'`],
    ['echo "~{s}"', 'echo "a\'b\\"c\\$(x)\\`y\\` ;z"'],
    ['echo ~{plain}', 'echo file.txt'],
    // The document's own text inside a placeholder stays shell syntax; only the values in it are quoted.
    ['~{if true then "cat ~{s} >> out" else ""}', `cat 'a'\\''b"c$(x)\`y\` ;z' >> out`],
    ['~{if false then "cat ~{s} >> out" else ""}', ''],
    ['grep ~{sep(" ", args)} x', "grep -v 'b c' x"],
    ['grep ~{sep(" ", quote(args))} x', 'grep "-v" "b c" x'],
    ["grep ~{sep(' ', squote(prefix('--', args)))} x", "grep '---v' '--b c' x"],
    ['grep ~{sep(" ", evil_args)} x', `grep 'a'\\''b"c$(x)\`y\` ;z' x`],
    ['grep ~{sep(" ", quote(evil_args))} x', 'grep "a\'b\\"c\\$(x)\\`y\\` ;z" x'],
  ];
  for (const [command, expected] of cases) {
    it(command, () => {
      const doc = `version 1.1\ntask t { input { String s String plain Array[String] args Array[String] evil_args } command <<<\n${command}\n>>> }`;
      const task = loadWdl({ main: doc }).main.doc.tasks[0]!;
      const names: Record<string, WdlValue> = {
        s: { t: 'String', v: evil },
        plain: { t: 'String', v: 'file.txt' },
        args: {
          t: 'Array',
          items: [
            { t: 'String', v: '-v' },
            { t: 'String', v: 'b c' },
          ],
        },
        evil_args: { t: 'Array', items: [{ t: 'String', v: evil }] },
      };
      assert.equal(renderCommand(task.command, { lookup: (n) => names[n], structs: new Map(), files: memoryFiles() }), expected);
    });
  }
});
