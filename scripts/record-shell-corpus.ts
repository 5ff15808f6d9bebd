#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { finishCommand } from '../src/domain/render/shell.js';
import { digestOf, outcomeOf, shellCaseGenerator } from '../test/helpers/shell-corpus.js';
import { fixturePath } from '../test/helpers/paths.js';

/**
 * Records what the shell lexer makes of the seeded corpus of test/helpers/shell-corpus.ts, one digest per case, in
 * test/fixtures/shell-lexer-corpus.json, which test/domain/shell-lexer.test.ts replays against the current lexer.
 *
 * Run once (`npm run build && node dist/scripts/record-shell-corpus.js`) from the single 459-line `lex` before it
 * was split into a state machine (issue 23, item 5), so that the rewrite is checked against the old behaviour case
 * by case, refusal messages included. Record again only when the lexer's behaviour is changed on purpose, and say so
 * in the commit: a new recording accepts every outcome the current code gives.
 */
const SEED = 2311;
const CASES = 4000;

const next = shellCaseGenerator(SEED);
const digests: string[] = [];
const tally = { rendered: 0, placement: 0, value: 0, threw: 0 };
for (let n = 0; n < CASES; n++) {
  const outcome = outcomeOf(finishCommand, next());
  if ('out' in outcome) tally.rendered++;
  else if ('threw' in outcome) tally.threw++;
  else tally[outcome.failure as 'placement' | 'value']++;
  digests.push(digestOf(outcome));
}
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const file = fixturePath('shell-lexer-corpus.json');
const recording = { seed: SEED, cases: CASES, recordedAt: commit, outcomes: tally, digests: digests.join(' ') };
writeFileSync(file, `${JSON.stringify(recording, null, 1)}\n`);
console.log(`${file}: ${CASES} cases from seed ${SEED} at ${commit}: ${JSON.stringify(tally)}`);
