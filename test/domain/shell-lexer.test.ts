import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
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
