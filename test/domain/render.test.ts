import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { readToolDefinition, type ToolDefinition } from '../../src/domain/tools/definition.js';
import type { JsonObject } from '../../src/domain/json.js';
import { RenderError, renderCommand, type RenderInput } from '../../src/domain/render/index.js';
import { HOOKS_ACTIVE } from '../../src/domain/render/jinja.js';
import { finishCommand } from '../../src/domain/render/shell.js';
import { macroChain } from '../helpers/documents.js';
import { EXACT_CONTEXTS, HOSTILE, RUN_ONLY_CONTEXTS } from '../helpers/shell-contexts.js';
import { fixturePath } from '../helpers/paths.js';
import { mulberry32 } from '../../src/demo/reference.js';

// ---------------------------------------------------------------------------------------------
// helpers

/** A tool definition read the way stored definitions are read (readToolDefinition). */
function tool(configs: JsonObject): ToolDefinition {
  return readToolDefinition({
    requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 2, mem: '2048m', disk: '8g' } },
    ...configs,
  });
}

const templateTool = (cmd: string, extra: JsonObject = {}): ToolDefinition => tool({ cmd_template: cmd, ...extra });

function render(cmd: string, parameters: Record<string, unknown> = {}, files: Partial<Pick<RenderInput, 'inputs' | 'outputs'>> = {}): string {
  return renderCommand({ tool: templateTool(cmd), inputs: files.inputs ?? {}, outputs: files.outputs ?? {}, parameters }).command;
}

function appFixture(name: string): ToolDefinition {
  const doc = parseYaml(readFileSync(fixturePath(name), 'utf8')) as { app: JsonObject };
  return readToolDefinition(doc.app);
}

const SHELLS: { label: string; argv: string[] }[] = [{ label: 'dash (/bin/sh)', argv: ['/bin/sh'] }];
if (existsSync('/bin/bash')) {
  SHELLS.push({ label: 'bash', argv: ['/bin/bash'] }, { label: 'bash --posix', argv: ['/bin/bash', '--posix'] });
}

let work = '';
before(() => {
  work = mkdtempSync(join(tmpdir(), 'gdflow-render-'));
});
after(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A fresh directory with a decoy file (so an unquoted `*` would visibly expand). */
function sandbox(): string {
  const dir = mkdtempSync(join(work, 'run-'));
  writeFileSync(join(dir, 'decoy'), '');
  return dir;
}

/** Run a command exactly as the executor does: `sh -c <command>`, nothing substituted. */
function run(shell: string[], command: string, cwd: string, env: Record<string, string> = {}): { stdout: string; stderr: string; status: number | null } {
  const result = spawnSync(shell[0]!, [...shell.slice(1), '-c', command], {
    cwd,
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/home/someone', ...env },
  });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}

const pwned = (dir: string): boolean => readdirSync(dir).some((name) => name.startsWith('PWNED'));

function assertRenderError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof RenderError, `expected a RenderError, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------

describe('render: the templates of docs/wire.md §5 and the examples', () => {
  it('renders the fastqc example tool (fixture) to the expected command', () => {
    const fastqc = appFixture('fastqc-tool.yml');
    const { command, stdin, stdout } = renderCommand({
      tool: fastqc,
      inputs: { inputseq: ['/var/data/in/a_1.fq.gz', '/var/data/in/a_2.fq.gz'] },
      outputs: { outputtgz: ['/var/data/out/fastqc.tgz'] },
      parameters: {},
    });
    assert.equal(
      command,
      'set -x\nmkdir /var/data/fastqc\nfastqc  -o /var/data/fastqc  -t 4   /var/data/in/a_1.fq.gz  /var/data/in/a_2.fq.gz  ;\n' +
        'tar zcvf  /var/data/out/fastqc.tgz fastqc/*',
    );
    assert.equal(stdin, undefined);
    assert.equal(stdout, undefined);
  });

  it('renders the hello example tool, and the command prints Hello world！', () => {
    const hello = appFixture('hello-tool.yml');
    const { command } = renderCommand({ tool: hello, inputs: {}, outputs: {}, parameters: {} });
    // `{{ '\n' }}` adds a newline; the template's own final newline is dropped, as Jinja2 does.
    assert.equal(command, 'echo "Hello world！" \n');
    const result = run(['/bin/sh'], command, sandbox());
    assert.equal(result.status, 0);
    assert.equal(result.stdout, 'Hello world！\n');
  });

  it('renders the two docs/wire.md §5 templates', () => {
    const files = { inputs: { inputseq: ['/var/data/in/x.fq'] }, outputs: { outputtgz: ['/var/data/o.tgz'] } };
    assert.equal(
      render('fastqc -o /var/data/fastqc -t {{requirements.resources.cpu}} {% for one in inputs.inputseq %} {{ one.path }} {% endfor %}', {}, files),
      'fastqc -o /var/data/fastqc -t 2  /var/data/in/x.fq ',
    );
    assert.equal(render('tar zcvf {% for one in outputs.outputtgz %}{{ one.path }}{% endfor %} fastqc/*', {}, files), 'tar zcvf /var/data/o.tgz fastqc/*');
  });

  it('supports length, default, map(attribute=path), join, requirements and undefined values', () => {
    const files = { inputs: { reads: ['/var/data/in/a.fq', '/var/data/in/b c.fq'] }, outputs: {} };
    assert.equal(render('n={{ inputs.reads | length }}', {}, files), 'n=2');
    assert.equal(render("{{ inputs.reads | map(attribute='path') | join(',') }}", {}, files), "/var/data/in/a.fq,'/var/data/in/b c.fq'");
    assert.equal(render("x {{ parameters.missing | default('dflt') }}"), 'x dflt');
    assert.equal(render('x {{ parameters.t | default(8) }}', { t: 3 }), 'x 3');
    assert.equal(render('[{{ parameters.missing }}]'), '[]');
    assert.equal(render('[{{ parameters.n }}]', { n: null }), '[]');
    assert.equal(
      render(
        '{{ requirements.resources.mem }} {{ requirements.resources.disk }} {{ requirements.resources.cpu }} {{ requirements.resources.network }} {{ requirements.container.image }} {{ requirements.container.type }}',
      ),
      '2048m 8192m 2 false debian:bookworm docker',
    );
    assert.equal(render("a{{ '\\n' }}b"), 'a\nb');
    assert.equal(render('{{ parameters.i }} {{ parameters.f }} {{ parameters.b }}', { i: 42, f: 0.5, b: true }), '42 0.5 true');
  });

  it('lets template logic see user strings as they are (comparisons, length, methods, slices)', () => {
    assert.ok(HOOKS_ACTIVE, 'the jinja interpreter hooks must be active');
    const t = "{% if parameters.mode == 'fast' %}F{% else %}S{% endif %}";
    assert.equal(render(t, { mode: 'fast' }), 'F');
    assert.equal(render(t, { mode: 'slow' }), 'S');
    assert.equal(render("{% if parameters.mode != 'fast' %}not{% endif %}", { mode: 'fast' }), '');
    assert.equal(render("{% if parameters.mode in ['a', 'fast'] %}in{% endif %}", { mode: 'fast' }), 'in');
    assert.equal(render("{% if 'as' in parameters.mode %}sub{% endif %}", { mode: 'fast' }), 'sub');
    assert.equal(render('{{ parameters.mode | length }}', { mode: 'fast' }), '4');
    assert.equal(render('{{ parameters.mode.length }}', { mode: 'fast' }), '4');
    assert.equal(render("{{ parameters.mode.startswith('fa') }}", { mode: 'fast' }), 'true');
    assert.equal(render("{% if inputs.r[0].path.endswith('.gz') %}gz{% endif %}", {}, { inputs: { r: ['/var/data/a.gz'] } }), 'gz');
    assert.equal(render("{{ parameters.list.split(',') | length }}", { list: 'a,b,c' }), '3');
    assert.equal(render('{{ parameters.mode[0:2] }}', { mode: 'fast' }), 'fa');
    assert.equal(render('{{ parameters.mode | upper }}', { mode: 'fast' }), 'FAST');
    assert.equal(render("{{ parameters.mode ~ '.bam' }}", { mode: 'fast' }), 'fast.bam');
    assert.equal(render('{% if parameters.e %}set{% else %}empty{% endif %}', { e: '' }), 'empty');
    assert.equal(render("{{ parameters.e | default('d', true) }}", { e: '' }), 'd');
    assert.equal(render('{{ parameters.n | int + 1 }}', { n: '41' }), '42');
  });
});

describe('render: empty cmd_template assembles the command from the definition', () => {
  const assembled = tool({
    cmd_template: '',
    inputs: {
      reads: { prefix: '-i', separator: ' ', item: { separator: ' ' }, maxitems: 10 },
      refs: { prefix: '--ref=', separator: '', item: { separator: ',' }, maxitems: 10 },
      idx: { prefix: '-I', separator: '', item: { separator: ' -I' }, maxitems: 10 },
      none: { prefix: '--none', separator: ' ' },
      sin: { stdin: true },
    },
    parameters: {
      threads: { type: 'integer', prefix: '--threads=', separator: '' },
      name: { type: 'string', prefix: '-n', separator: ' ' },
      verbose: { type: 'flag', prefix: '--verbose' },
      quiet: { type: 'flag', prefix: '--quiet' },
      empty: { type: 'string', prefix: '--empty' },
      nothing: { type: 'string', prefix: '--nothing' },
      ratio: { type: 'float', prefix: '-r' },
    },
    outputs: {
      out: { prefix: '-o', separator: ' ' },
      log: { stdout: true },
    },
  });
  const input: RenderInput = {
    tool: assembled,
    inputs: {
      reads: ['/var/data/in/a.fq', '/var/data/in/b.fq'],
      refs: ['/var/data/in/r1.fa', '/var/data/in/r2.fa'],
      idx: ['/var/data/i1', '/var/data/i2'],
      none: [],
      sin: ['/var/data/in/stdin.txt'],
    },
    outputs: { out: ['/var/data/out/o.bam'], log: ['/var/data/out/log.txt'] },
    parameters: { threads: 4, name: 'sample 1', verbose: true, quiet: false, empty: '', nothing: null, ratio: 0.25 },
  };

  it('joins prefix + separator + items (inputs, then parameters, then outputs)', () => {
    const { command, stdin, stdout } = renderCommand(input);
    assert.equal(
      command,
      '-i /var/data/in/a.fq /var/data/in/b.fq --ref=/var/data/in/r1.fa,/var/data/in/r2.fa -I/var/data/i1 -I/var/data/i2 ' +
        "--threads=4 -n 'sample 1' --verbose -r 0.25 -o /var/data/out/o.bam",
    );
    assert.equal(stdin, '/var/data/in/stdin.txt');
    assert.equal(stdout, '/var/data/out/log.txt');
  });

  it('treats a whitespace-only template as empty', () => {
    const spaced = { ...assembled, cmdTemplate: ' \n\t ' };
    assert.equal(renderCommand({ ...input, tool: spaced }).command, renderCommand(input).command);
  });

  it('passes hostile values and file names as exactly one argument each', () => {
    const echo = tool({
      cmd_template: '',
      inputs: { prog: { prefix: "printf '<%s>\\n'", separator: '' }, files: { separator: '', item: { separator: ' ' }, maxitems: 100 } },
      parameters: { v: { type: 'string', prefix: '', separator: '' } },
    });
    // The prefix is quoted as one word; so the program is passed through a path, and the words are the arguments.
    const dir = sandbox();
    const printer = join(dir, 'printer');
    writeFileSync(printer, '#!/bin/sh\nfor a in "$@"; do printf \'<%s>\\n\' "$a"; done\n', { mode: 0o755 });
    const t = { ...echo, inputs: { files: echo.inputs.files! }, parameters: { v: echo.parameters.v! } };
    for (const value of HOSTILE) {
      const { command } = renderCommand({
        tool: t,
        inputs: { files: [`/var/data/in/${value}.fq`, '/var/data/in/b.fq'] },
        outputs: {},
        parameters: { v: value },
      });
      const result = run(['/bin/sh'], `${printer} ${command}`, dir);
      assert.equal(pwned(dir), false, `PWNED created for ${JSON.stringify(value)}: ${command}`);
      assert.equal(result.stdout, `</var/data/in/${value}.fq>\n</var/data/in/b.fq>\n<${value}>\n`, `value ${JSON.stringify(value)} → ${command}`);
    }
  });

  it('quotes author text that holds shell syntax instead of running it', () => {
    const t = tool({ cmd_template: '', outputs: { o: { prefix: '>', separator: ' ' } }, parameters: { p: { type: 'flag', prefix: '--x;y' } } });
    assert.equal(renderCommand({ tool: t, inputs: {}, outputs: { o: ['/var/data/o'] }, parameters: { p: true } }).command, "'--x;y' '>' /var/data/o");
  });

  it('contributes nothing for an empty port, a false flag, and a null or empty value', () => {
    const t = tool({
      cmd_template: '',
      inputs: { a: { prefix: '-a' } },
      parameters: { f: { type: 'flag', prefix: '-f' }, s: { type: 'string', prefix: '-s' } },
    });
    assert.equal(renderCommand({ tool: t, inputs: { a: [] }, outputs: {}, parameters: { f: false, s: null } }).command, '');
    assert.equal(renderCommand({ tool: t, inputs: {}, outputs: {}, parameters: { f: true, s: '' } }).command, '-f');
  });

  it('refuses a flag that is not a boolean, and a stream port with several files', () => {
    const t = tool({ cmd_template: '', parameters: { f: { type: 'flag', prefix: '-f' } } });
    assertRenderError(() => renderCommand({ tool: t, inputs: {}, outputs: {}, parameters: { f: 'true' } }), /parameters\.f is a flag/);
    assertRenderError(
      () => renderCommand({ ...input, inputs: { ...input.inputs, sin: ['/var/data/a', '/var/data/b'] } }),
      /inputs\.sin is connected to stdin but has 2 files/,
    );
  });

  it('returns stream ports as stdin/stdout for a non-empty template too', () => {
    const t = tool({ cmd_template: 'sort', inputs: { i: { stdin: true } }, outputs: { o: { stdout: true } } });
    assert.deepEqual(renderCommand({ tool: t, inputs: { i: ['/var/data/in/x'] }, outputs: { o: ['/var/data/out/y'] }, parameters: {} }), {
      command: 'sort',
      stdin: '/var/data/in/x',
      stdout: '/var/data/out/y',
    });
  });
});

describe('render: hostile values run through a real shell', () => {
  for (const shell of SHELLS) {
    for (const context of EXACT_CONTEXTS) {
      it(`${shell.label}: ${context.label} — nothing runs and the program gets exactly the value`, () => {
        const dir = sandbox();
        for (const value of HOSTILE) {
          const expected = context.expected(value);
          if (expected === undefined) {
            // A value that cannot be placed there safely is refused, never returned.
            assert.throws(() => render(context.template, { x: value }), RenderError, `expected a RenderError for ${JSON.stringify(value)}`);
            continue;
          }
          const command = render(context.template, { x: value });
          const result = run(shell.argv, command, dir);
          assert.equal(pwned(dir), false, `PWNED created for ${JSON.stringify(value)} by ${JSON.stringify(command)}`);
          assert.equal(result.stdout, expected, `value ${JSON.stringify(value)}; command ${JSON.stringify(command)}; stderr ${result.stderr}`);
        }
      });
    }
    it(`${shell.label}: other contexts — nothing runs`, () => {
      const dir = sandbox();
      for (const template of RUN_ONLY_CONTEXTS) {
        for (const value of HOSTILE) {
          const command = render(template, { x: value });
          run(shell.argv, command, dir);
          assert.equal(pwned(dir), false, `PWNED created for ${JSON.stringify(value)} by ${JSON.stringify(command)}`);
        }
      }
    });
  }

  it('passes a file whose basename is hostile (from inputs) to the program as one path', () => {
    const dir = sandbox();
    for (const value of HOSTILE) {
      if (value.includes('/') || value === '' || value === '.' || value === '..') continue;
      const path = join(dir, `in ${value}.txt`);
      writeFileSync(path, `content of ${JSON.stringify(value)}`);
      const template = "{% for f in inputs.reads %}cat {{ f.path }}; printf '<%s>' \"{{ f.path }}\" '{{ f.path }}'{% endfor %}";
      for (const shell of SHELLS) {
        const { command } = renderCommand({ tool: templateTool(template), inputs: { reads: [path] }, outputs: {}, parameters: {} });
        const result = run(shell.argv, command, dir);
        assert.equal(pwned(dir), false, `PWNED created by ${JSON.stringify(command)}`);
        assert.equal(result.stdout, `content of ${JSON.stringify(value)}<${path}><${path}>`, `${shell.label}: ${command}\n${result.stderr}`);
      }
    }
  });

  it('keeps safe paths and numbers readable and quotes the rest', () => {
    assert.equal(render('bwa mem -t {{ parameters.t }} {{ parameters.p }}', { t: 8, p: '/var/data/in/a_1.fq.gz' }), 'bwa mem -t 8 /var/data/in/a_1.fq.gz');
    assert.equal(render('echo {{ parameters.p }}', { p: 'a b' }), "echo 'a b'");
    assert.equal(render('echo {{ parameters.p }}', { p: "it's" }), "echo 'it'\\''s'");
    assert.equal(render('echo "{{ parameters.p }}"', { p: 'a"$b`\\' }), 'echo "a\\"\\$b\\`\\\\"');
    assert.equal(render("echo '{{ parameters.p }}'", { p: "it's" }), "echo 'it'\\''s'");
  });

  it('quotes a value that could form an assignment word or extend a $name', () => {
    assert.equal(render('{{ parameters.k }}=1 env', { k: 'PATH' }), "'PATH'=1 env");
    assert.equal(render('X{{ parameters.v }} env', { v: '=1' }), "X'=1' env");
    assert.equal(render('--opt={{ parameters.v }}', { v: 'a=b' }), '--opt=a=b');
    const bare = render('printf \'<%s>\\n\' $HOME{{ parameters.v }} "$HOME{{ parameters.v }}"', { v: 'abc' });
    assert.equal(bare, 'printf \'<%s>\\n\' $HOME\'abc\' "$HOME""abc"');
    for (const shell of SHELLS) assert.equal(run(shell.argv, bare, sandbox(), { HOME: '/h' }).stdout, '</habc>\n</habc>\n');
  });

  it('quotes a file path in a command substitution inside shell arithmetic, where it is a command argument', () => {
    const dir = sandbox();
    const reads = join(dir, 'in reads.fq');
    writeFileSync(reads, 'a\nb\nc\nd\ne\nf\ng\nh\n');
    for (const [template, expected] of [
      ['echo $(( $(wc -l < {{ inputs.reads[0].path }}) / 4 ))', `echo $(( $(wc -l < '${reads}') / 4 ))`],
      ['echo $(( `wc -l < {{ inputs.reads[0].path }}` / 4 ))', `echo $(( \`wc -l < '${reads}'\` / 4 ))`],
      ['echo $(( $(echo $(( $(wc -l < "{{ inputs.reads[0].path }}") * 2 ))) / 8 ))', `echo $(( $(echo $(( $(wc -l < "${reads}") * 2 ))) / 8 ))`],
    ] as const) {
      const { command } = renderCommand({ tool: templateTool(template), inputs: { reads: [reads] }, outputs: {}, parameters: {} });
      assert.equal(command, expected);
      for (const shell of SHELLS) assert.equal(run(shell.argv, command, dir).stdout, '2\n', `${shell.label}: ${command}`);
    }
    // Directly inside the arithmetic a path is refused, and no task could do better: PutTool refuses it too.
    assert.throws(
      () => renderCommand({ tool: templateTool('echo $(( {{ inputs.reads[0].path }} / 4 ))'), inputs: { reads: [reads] }, outputs: {}, parameters: {} }),
      (error: unknown) =>
        error instanceof RenderError && error.failure === 'placement' && /inputs\.reads\[0\] is used inside shell arithmetic/.test(error.message),
    );
    // A string parameter there depends on its value: another value may be an integer.
    assert.throws(
      () => render('echo $(( {{ parameters.n }} ))', { n: 'x' }),
      (error: unknown) => error instanceof RenderError && error.failure === 'value',
    );
  });

  it('never lets a value printed into shell arithmetic run (bash expands a[$(...)] in the output again)', () => {
    const templates = [
      'echo $(( $(echo {{ parameters.x }}) ))',
      'echo $(( `echo {{ parameters.x }}` ))',
      'echo $(( $(echo "{{ parameters.x }}") + $(printf %s \'{{ parameters.x }}\') ))',
      'echo $(( $(cat <<EOF\n{{ parameters.x }}\nEOF\n) ))',
      'echo $(( x[$(echo {{ parameters.x }})] ))',
    ];
    for (const template of templates) {
      assertRenderError(() => render(template, { x: 'a[$(touch PWNED)]' }), /parameters\.x/);
      for (const shell of SHELLS) {
        const dir = sandbox();
        for (const value of HOSTILE) {
          let command: string;
          try {
            command = render(template, { x: value });
          } catch (error) {
            assert.ok(error instanceof RenderError, String(error));
            continue;
          }
          run(shell.argv, command, dir);
          assert.equal(pwned(dir), false, `${shell.label}: PWNED created for ${JSON.stringify(value)} by ${JSON.stringify(command)}`);
        }
      }
    }
    assert.equal(render(templates[0]!, { x: '41' }), 'echo $(( $(echo 41) ))');
  });

  it('accepts an integer inside shell arithmetic and refuses anything else there', () => {
    assert.equal(render('echo $(( {{ parameters.n }} + 1 ))', { n: '41' }), 'echo $(( 41 + 1 ))');
    for (const value of ['a[$(touch PWNED)]', 'x', '1+1', '$((1))']) {
      assertRenderError(() => render('echo $(( {{ parameters.n }} + 1 ))', { n: value }), /parameters\.n is used inside shell arithmetic/);
      assertRenderError(() => render('(( {{ parameters.n }} > 1 )) && echo big', { n: value }), /parameters\.n is used inside shell arithmetic/);
      assertRenderError(() => render('echo $[ {{ parameters.n }} ]', { n: value }), /shell arithmetic/);
    }
  });
});

describe('render: what cannot be quoted is refused', () => {
  const x = { x: '$(touch PWNED)' };

  it('refuses a value cut apart by the template (slicing a longer string)', () => {
    assertRenderError(() => render("{{ ('-' ~ parameters.x)[0:3] }}", x), /parameters\.x was cut apart/);
    assertRenderError(() => render('{% set s %}-o {{ parameters.x }}{% endset %}{{ s[0:6] }}', x), /cut apart/);
    assertRenderError(() => render("{{ ('-' ~ parameters.x ~ '-').split('t')[1] }}", x), /cut apart/);
  });

  it('slices a value that is one whole user string correctly instead', () => {
    const command = render("printf '<%s>\\n' {{ parameters.x[0:3] }}", { x: '$(touch PWNED)' });
    assert.equal(command, "printf '<%s>\\n' '$(t'");
    assert.equal(run(['/bin/sh'], command, sandbox()).stdout, '<$(t>\n');
  });

  it('refuses markers escaped to text, forged markers, and NUL / private-use characters in values', () => {
    assertRenderError(
      () => render("{{ inputs.r | map(attribute='path') | tojson(ensure_ascii=true) }}", {}, { inputs: { r: ['/var/data/$(x)'] } }),
      /escaped a user value to text/,
    );
    assertRenderError(() => render("echo {{ '\\ue000' }}$(touch PWNED){{ '\\ue001' }}"), /private-use/);
    assertRenderError(() => render('echo \uE000a\uE001'), /private-use/);
    assertRenderError(() => render('echo {{ parameters.x }}', { x: 'a\uE001; touch PWNED' }), /parameters\.x must not contain NUL or private-use/);
    assertRenderError(() => render('echo {{ parameters.x }}', { x: 'a\u0000b' }), /parameters\.x must not contain/);
    assertRenderError(() => render('cat', {}, { inputs: { r: ['/var/data/a', '/var/data/\uF000'] } }), /inputs\.r\[1\] must not contain/);
  });

  it('quotes values in nested backticks for the command inside', () => {
    for (const value of HOSTILE) {
      const command = render("v=`w=\\`printf '%s' {{ parameters.x }}\\`; printf '%s' \"$w\"`; printf '<%s>\\n' \"$v\"", { x: value });
      for (const shell of SHELLS) {
        const dir = sandbox();
        const result = run(shell.argv, command, dir);
        assert.equal(pwned(dir), false, `${shell.label}: ${command}`);
        assert.equal(result.stdout, `<${value.replace(/\n+$/, '')}>\n`, `${shell.label}: ${JSON.stringify(command)}`);
      }
    }
  });

  it('refuses values right after a backslash or a $', () => {
    assertRenderError(() => render('echo \\{{ parameters.x }}', x), /parameters\.x directly follows a backslash/);
    assertRenderError(() => render('echo "\\{{ parameters.x }}"', x), /directly follows a backslash/);
    assertRenderError(() => render('echo ${{ parameters.x }}', x), /directly follows '\$'/);
    assertRenderError(() => render('echo "${{ parameters.x }}"', x), /directly follows '\$'/);
    // Inside backticks `\\` is one backslash for the command inside, and `\$` a `$`.
    assertRenderError(() => render('echo `echo \\\\{{ parameters.x }}`', x), /directly follows a backslash/);
    assertRenderError(() => render('echo `echo \\${{ parameters.x }}`', x), /directly follows '\$'/);
  });

  it('refuses values in contexts the shells disagree on ($\'\', "${}", nested or double-quoted backticks, case in $())', () => {
    assertRenderError(() => render("echo $'a{{ parameters.x }}'", x), /\$'\.\.\.' quoting/);
    assertRenderError(() => render('echo "${v:-{{ parameters.x }}}"', x), /inside \$\{\.\.\.\} within double quotes/);
    assertRenderError(() => render('echo "`echo {{ parameters.x }}`"', x), /backticks within double quotes/);
    assertRenderError(() => render('echo $(case a in a) echo {{ parameters.x }};; esac)', x), /after a 'case' inside \$\(\.\.\.\)/);
    assertRenderError(() => render("echo $'\\'' {{ parameters.x }}", x), /ambiguous/);
    assertRenderError(() => render('echo "${v:-\'}" {{ parameters.x }}', x), /ambiguous/);
  });

  it('refuses values in a here-document delimiter, values that would end it, and bodies with substitutions', () => {
    assertRenderError(() => render('cat <<{{ parameters.x }}\nhi\n', { x: 'EOF' }), /here-document delimiter/);
    assertRenderError(() => render('cat <<EOF\n{{ parameters.x }}\nEOF', { x: 'EOF' }), /parameters\.x would end the here-document early/);
    assertRenderError(() => render("cat <<'EOF'\na\n{{ parameters.x }}\nEOF", { x: 'b\nEOF\ntouch PWNED' }), /would end the here-document early/);
    assertRenderError(() => render('cat <<EOF\n$(date) {{ parameters.x }}\nEOF', { x: 'a' }), /here-document that also runs substitutions/);
    assertRenderError(() => render('cat <<EOF\n$HOME{{ parameters.x }}\nEOF', { x: 'a' }), /directly follows/);
    // A quoted delimiter makes the body literal: substitutions there are text, values are fine.
    const command = render("cat <<'EOF'\n$(date) {{ parameters.x }}\nEOF", { x: '$(touch PWNED)' });
    const dir = sandbox();
    assert.equal(run(['/bin/sh'], command, dir).stdout, '$(date) $(touch PWNED)\n');
    assert.equal(pwned(dir), false);
  });

  it('refuses a value when the template leaves a quote or substitution open', () => {
    assertRenderError(() => render("echo '{{ parameters.x }}", x), /leaves a single quote open/);
    assertRenderError(() => render('echo "{{ parameters.x }}', x), /leaves a double quote open/);
    assertRenderError(() => render('echo $(echo {{ parameters.x }}', x), /leaves a command substitution open/);
    // Without user values the template's own mistakes are the shell's business.
    assert.equal(render("echo 'open"), "echo 'open");
  });

  it('refuses, as a last line of defence, a hostile value found outside its quoted place', () => {
    assert.throws(
      () => finishCommand('echo $(touch PWNED)', [{ member: 'parameters.x', value: '$(touch PWNED)' }]),
      (error: unknown) => error instanceof RenderError && error.message === 'parameters.x reached the command unquoted',
    );
    // A safe value (nothing special to the shell) may appear in the template's own text.
    assert.equal(finishCommand('mkdir /var/data/out', [{ member: 'parameters.d', value: '/var/data/out' }]), 'mkdir /var/data/out');
  });
});

describe('render: template errors become RenderError', () => {
  it('names the problem', () => {
    assertRenderError(() => render('{{ parameters.x | nosuchfilter }}', { x: 'a' }), /cmd_template failed to render: .*nosuchfilter/);
    assertRenderError(() => render('{% for x in %}'), /cmd_template is not a valid Jinja2 template/);
    assertRenderError(() => render("{{ raise_exception('bad input ' ~ parameters.x) }}", { x: 'a' }), /raise_exception: bad input a/);
    assertRenderError(() => render('{% for c in parameters.x %}{{ c }}{% endfor %}', { x: 'abc' }), /cmd_template failed to render/);
    assertRenderError(() => render('{{ parameters.x }}', { x: { nested: 1 } }), /parameters\.x must be a string, number, boolean or null/);
    assertRenderError(() => render('{{ parameters.x }}', { x: Number.NaN }), /parameters\.x must be a finite number/);
  });

  it('stops a template that would take too long or render too much', () => {
    assertRenderError(
      () => render('{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}'),
      /cmd_template takes more than \d+ steps to render/,
    );
    assertRenderError(
      () =>
        render(
          "{% set s = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' %}{% for i in range(20000) %}{{ s }}{% endfor %}",
        ),
      /cmd_template renders to more than \d+ characters/,
    );
  });

  it('refuses, before the parser recurses, a long input that would nest too deep (docs/templates.md, "Limits")', () => {
    // Each within the 65,536 characters a template may have, but for the length check itself.
    const limit = (template: string, pattern: RegExp) =>
      assert.throws(
        () => render(template, { x: 'a' }),
        (error: unknown) => error instanceof RenderError && error.failure === 'limit' && pattern.test(error.message),
      );
    const operators = /holds more than 256 operators/;
    limit(`{{ parameters.x${'|lower'.repeat(10_000)} }}`, operators);
    limit(`{% set y = parameters.x${'|lower'.repeat(10_000)} %}{{ y }}`, operators);
    limit(`{{ 1${'+1'.repeat(10_000)} }}`, operators);
    limit(`{{ 'a'${'~parameters.x'.repeat(4_000)} }}`, operators);
    limit(`{{ parameters.x${'.a'.repeat(10_000)} }}`, operators);
    limit(`{{ parameters.x${'[0]'.repeat(10_000)} }}`, operators);
    limit(`{{ range${'()'.repeat(10_000)} }}`, operators);
    limit(`{{ ${'not '.repeat(5_000)}1 }}`, operators);
    limit(`{{ ${'-'.repeat(10_000)}1 }}`, operators);
    limit(`{{ ${'1 if 1 else '.repeat(3_000)}2 }}`, operators);
    limit(`{{ 1${' and 1'.repeat(5_000)} }}`, operators);
    limit(`{{ ${'('.repeat(10_000)}1${')'.repeat(10_000)} }}`, /nests brackets more than 32 deep/);
    limit(`{{ ${'['.repeat(10_000)}${']'.repeat(10_000)} }}`, /nests brackets more than 32 deep/);
    limit(`{{ range(${'range('.repeat(5_000)}${')'.repeat(5_001)} }}`, /nests brackets more than 32 deep/);
    limit(`${'{%if 1%}'.repeat(3_000)}x${'{%endif%}'.repeat(3_000)}`, /nests block statements more than 32 deep/);
    limit(`${'{%set x%}'.repeat(40)}x${'{%endset%}'.repeat(40)}`, /nests block statements more than 32 deep/);
    limit(`{% if 1 %}a${'{%elif 1%}'.repeat(5_000)}{% endif %}`, /more than 100 elif branches/);
    limit('x'.repeat(70_000), /too long: 70000 characters, the limit is 65536/);
    limit(macroChain(1_500), /nests evaluations more than 500 deep/);
    limit('{% set ns = namespace(x=[]) %}{% for i in range(20000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}', /nests values or calls too deep to render/);
    // Up to the limits, templates render (256 operators: the `.` and 255 filters).
    assert.equal(render(`{{ parameters.x${'|upper'.repeat(255)} }}`, { x: 'a' }), 'A');
    limit(`{{ parameters.x${'|upper'.repeat(256)} }}`, operators);
    assert.equal(render(`{{ ${'('.repeat(32)}parameters.x${')'.repeat(32)} }}`, { x: 'a' }), 'a');
    assert.equal(render(`${'{%if 1%}'.repeat(32)}x${'{%endif%}'.repeat(32)}`), 'x');
    assert.equal(render(`{% if parameters.x == 'z' %}z${"{%elif parameters.x == 'y'%}y".repeat(99)}{%elif parameters.x == 'a'%}a{% endif %}`, { x: 'a' }), 'a');
    assert.equal(render(macroChain(200)), 'x');
  });

  it('cannot reach the host runtime through the template', () => {
    assertRenderError(() => render('{{ range.constructor("return process")() }}'), /cmd_template failed to render/);
  });
});

describe('render: random shell contexts (seeded fuzz)', () => {
  /** Small deterministic PRNG (mulberry32), so a failure can be replayed. */
  const prng = mulberry32;

  /**
   * Values that only shell *parsing* could run. (A template may execute a command's output, e.g.
   * `` `echo {{ x }}` `` in command position; that runs whatever the output's first word names,
   * which no quoting prevents — so no value here starts, after splitting, with `touch`.)
   */
  const VALUES = [
    '$(touch PWNED)',
    '`touch PWNED`',
    '; touch PWNED',
    "' ; touch PWNED ; '",
    '" ; touch PWNED ; "',
    '\\"$(touch PWNED)\\"',
    '\'"`$(touch PWNED)`"\'',
    'x\nEOF\ntouch PWNED\nEOF',
    '\\`touch PWNED\\`',
    "\\'$(touch PWNED)",
    'a$(touch PWNED)',
    '\\',
    "'",
    '"',
    '`',
    'EOF',
  ];

  /** Random but well-formed shell text: nested quotes, substitutions, here-documents, comments. */
  function generator(random: () => number): () => string {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const many = (max: number, make: () => string, join = ''): string => Array.from({ length: 1 + Math.floor(random() * max) }, make).join(join);
    const backslashed = (text: string): string => text.replace(/[\\`$]/g, (c) => `\\${c}`);
    const value = (): string =>
      pick([
        '{{ parameters.x }}',
        '{{ parameters.x | upper }}',
        "{{ parameters.x ~ '.q' }}",
        '{{ parameters.x[0:] }}',
        "{{ parameters.x | replace('a', 'b') }}",
      ]);
    const dq = (d: number): string =>
      many(3, () =>
        pick([value, value, () => 'a b', () => "'", () => '\\"', () => '\\\\', () => `$(${cmd(d + 1)})`, () => '${v:-a}', () => '$HOME', () => '#'])(),
      );
    const sq = (): string => many(3, () => pick([value, value, () => 'a b', () => '"', () => '\\', () => '$(x)', () => '`'])());
    const part = (d: number): string => {
      const options: (() => string)[] = [value, value, value, () => 'a', () => '-o=', () => `"${dq(d)}"`, () => `'${sq()}'`, () => '\\;'];
      if (d < 2) {
        options.push(
          () => `$(${cmd(d + 1)})`,
          () => `\`${backslashed(cmd(d + 1))}\``,
          () => `\${v:-${word(d + 1)}}`,
          () => `"$(${cmd(d + 1)})"`,
          () => `"\`${backslashed(cmd(d + 1))}\`"`,
          // arithmetic around a command substitution, and a value directly in it
          () => `$(( 1 + $(${cmd(d + 1)} | wc -c) ))`,
          () => `$(( ${value()} + 1 ))`,
        );
      }
      return pick(options)();
    };
    const word = (d: number): string => many(3, () => part(d));
    const simple = (d: number): string => pick(['printf %s ', 'echo ', 'x=', ': ', 'test ', 'v=1 ']) + many(3, () => word(d), ' ');
    const cmd = (d: number): string => {
      const r = random();
      if (r < 0.1 && d < 2) return `cat <<'EOF'\n${word(d)} ${word(d)}\nEOF\n`;
      if (r < 0.2 && d < 2) return `cat <<EOF\n${pick([value(), 'a', `$HOME ${value()}`, `${value()} b`])}\nEOF\n`;
      if (r < 0.25) return `${simple(d)} # ${word(d)}\n`;
      if (r < 0.3) return `for f in ${word(d)}; do echo "$f"; done`;
      if (r < 0.35) return `case ${word(d)} in (*) echo ${word(d)};; esac`;
      return many(2, () => simple(d), pick(['; ', ' && ', ' | ', '\n']));
    };
    return () => cmd(0);
  }

  it('never lets a value run, in dash and bash, whatever the template around it', () => {
    const random = prng(20240611);
    const template = generator(random);
    let rendered = 0;
    let refused = 0;
    const dir = sandbox();
    for (let n = 0; n < 100; n++) {
      const text = template();
      const value = VALUES[Math.floor(random() * VALUES.length)]!;
      let command: string;
      try {
        command = render(text, { x: value });
      } catch (error) {
        assert.ok(error instanceof RenderError, `not a RenderError for ${JSON.stringify(text)}: ${String(error)}`);
        refused++;
        continue;
      }
      rendered++;
      // dash and bash (bash --posix parses like bash for everything generated here).
      for (const shell of SHELLS.slice(0, 2)) {
        spawnSync(shell.argv[0]!, [...shell.argv.slice(1), '-c', command], {
          cwd: dir,
          timeout: 5000,
          input: '',
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        });
        assert.equal(
          pwned(dir),
          false,
          `${shell.label} ran the value: template ${JSON.stringify(text)}, value ${JSON.stringify(value)}, command ${JSON.stringify(command)}`,
        );
      }
    }
    // The fuzz must exercise rendering, not only refusals.
    assert.ok(rendered > 35, `only ${rendered} commands rendered (${refused} refused)`);
  });
});
