import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RenderError } from '../../src/domain/render/errors.js';
import { CLOSE, OPEN } from '../../src/domain/render/sentinel.js';
import { finishCommand } from '../../src/domain/render/shell.js';
import { fixturePath } from '../helpers/paths.js';
import { digestOf, outcomeOf, shellCaseGenerator } from '../helpers/shell-corpus.js';

/**
 * The shell lexer against recorded behaviour: test/fixtures/shell-lexer-corpus.json holds a digest of what the lexer
 * made of each case of a seeded corpus (the command, or the refusal with its message and kind), recorded by
 * scripts/record-shell-corpus.ts from the single-function lexer before it became a state machine. Any case whose
 * outcome differs is listed with its text and what the lexer gives now.
 */
interface Recording {
  seed: number;
  cases: number;
  recordedAt: string;
  outcomes: { rendered: number; placement: number; value: number; threw: number };
  digests: string;
}

const recording = JSON.parse(readFileSync(fixturePath('shell-lexer-corpus.json'), 'utf8')) as Recording;

describe('shell lexer: the seeded corpus gives the recorded outcomes', () => {
  it(`${recording.cases} cases from seed ${recording.seed}, recorded at ${recording.recordedAt}`, () => {
    const expected = recording.digests.split(' ');
    assert.equal(expected.length, recording.cases);
    const next = shellCaseGenerator(recording.seed);
    const differences: string[] = [];
    let rendered = 0;
    for (let n = 0; n < recording.cases; n++) {
      const lexCase = next();
      const outcome = outcomeOf(finishCommand, lexCase);
      if ('out' in outcome) rendered++;
      if (digestOf(outcome) !== expected[n]) differences.push(`case ${n}: ${JSON.stringify(lexCase)} now gives ${JSON.stringify(outcome)}`);
    }
    assert.deepEqual(differences.slice(0, 5), [], `${differences.length} of ${recording.cases} cases differ from the recording`);
    assert.equal(rendered, recording.outcomes.rendered);
  });

  it('exercises quoting and every kind of refusal, not only one of them', () => {
    const { rendered, placement, value, threw } = recording.outcomes;
    assert.ok(rendered > recording.cases / 4, `only ${rendered} cases rendered`);
    assert.ok(placement > 100 && value > 100, `refusals: ${placement} placement, ${value} value`);
    assert.equal(threw, 0, 'no case may end in anything but a command or a RenderError');
  });
});

describe('shell lexer: each frame quotes the values inside it and ends where the table in lexer.ts says', () => {
  // {{v}} is the value `a b$` (quoted as a word when unquoted, `$` escaped in double quotes), {{n}} the value `7`.
  const userValues = [
    { member: 'parameters.v', value: 'a b$' },
    { member: 'parameters.n', value: '7' },
  ];
  const marked = (template: string): string => template.replaceAll('{{v}}', `${OPEN}a b$${CLOSE}`).replaceAll('{{n}}', `${OPEN}7${CLOSE}`);
  const cases: [frame: string, template: string, command: string][] = [
    ['cmd (top)', 'echo {{v}}', "echo 'a b$'"],
    ['dq', 'echo "x {{v}}" {{v}}', `echo "x a b\\$" 'a b$'`],
    ['sq', "echo 'x {{v}}' {{v}}", "echo 'x a b$' 'a b$'"],
    ['cmd in dq, `(` `)` counted', 'echo "$( (echo {{v}}) ) {{v}}"', `echo "$( (echo 'a b$') ) a b\\$"`],
    ['param, dq inside it', 'echo ${x:-"{{v}}"} {{v}}', `echo \${x:-"a b\\$"} 'a b$'`],
    ['ansi', "echo $'x' {{v}}", "echo $'x' 'a b$'"],
    ['arith', 'echo $(( {{n}} + 1 )) {{v}}', "echo $(( 7 + 1 )) 'a b$'"],
    ['arith, `(` `)` counted', 'echo $(( ({{n}}) * 2 )) {{v}}', "echo $(( (7) * 2 )) 'a b$'"],
    ['arith at a word start', '(( {{n}} > 1 )) && echo {{v}}', "(( 7 > 1 )) && echo 'a b$'"],
    ['arith, $[ ]', 'echo $[ {{n}} ] "{{v}}"', 'echo $[ 7 ] "a b\\$"'],
    ['comment', 'echo ok # {{v}}\necho "{{v}}"', `echo ok # 'a b$'\necho "a b\\$"`],
    ['here-document', 'cat <<EOF\n{{v}}\nEOF\necho {{v}}', `cat <<EOF\na b\\$\nEOF\necho 'a b$'`],
    ['quoted here-document', "cat <<'EOF'\n{{v}}\nEOF\necho {{v}}", "cat <<'EOF'\na b$\nEOF\necho 'a b$'"],
    ['backticks', 'echo `echo {{v}}` {{v}}', "echo `echo 'a b\\$'` 'a b$'"],
  ];
  for (const [frame, template, command] of cases) {
    it(`${frame}: ${JSON.stringify(template)}`, () => assert.equal(finishCommand(marked(template), userValues), command));
  }

  const refusals: [frame: string, template: string, reason: RegExp][] = [
    ['param within dq', 'echo "${x:-{{v}}}"', /parameters\.v is used inside \$\{\.\.\.\} within double quotes/],
    ['ansi', "echo $'{{v}}'", /parameters\.v is used inside \$'\.\.\.' quoting/],
    ['arith', 'echo $(( {{v}} ))', /parameters\.v is used inside shell arithmetic/],
    ['cmd inside arith', 'echo $(( $(echo {{v}} | wc -c) ))', /parameters\.v holds '\$'/],
    ['dq left open', 'echo "{{v}}', /leaves a double quote open at its end/],
  ];
  for (const [frame, template, reason] of refusals) {
    it(`${frame}: ${JSON.stringify(template)} is refused`, () => {
      assert.throws(
        () => finishCommand(marked(template), userValues),
        (e: unknown) => e instanceof RenderError && reason.test(e.message),
      );
    });
  }
});
