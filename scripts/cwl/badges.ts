import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { percent, tallyByTag, type Finished } from './report.js';

/**
 * cwltest's `--badgedir`: for each tag (and the computed tag `all`) a shields.io badge `TAG.json` holding
 * `{"subject": TAG, "status": "P%", "color": ...}` (green when every test of the tag passed, red for `required`
 * otherwise, yellow for the others) and `TAG.md` listing the tests that passed, failed and were unsupported.
 */

export interface Badge {
  subject: string;
  status: string;
  color: 'green' | 'red' | 'yellow';
}

export function badges(finished: Finished[]): Map<string, Badge> {
  const out = new Map<string, Badge>();
  for (const [tag, tally] of tallyByTag(finished)) {
    const color = tally.passed === tally.total ? 'green' : tag === 'required' ? 'red' : 'yellow';
    out.set(tag, { subject: tag, status: `${percent(tally)}%`, color });
  }
  return out;
}

export function writeBadges(dir: string, finished: Finished[]): void {
  mkdirSync(dir, { recursive: true });
  for (const [tag, badge] of badges(finished)) {
    writeFileSync(join(dir, `${tag}.json`), JSON.stringify(badge));
    writeFileSync(join(dir, `${tag}.md`), tagListing(tag, finished));
  }
}

function tagListing(tag: string, finished: Finished[]): string {
  const ofTag = finished.filter(({ entry }) => tag === 'all' || entry.test.tags.includes(tag));
  const section = (title: string, keep: (status: string) => boolean) => [
    `## ${title}`,
    ...ofTag
      .filter(({ result }) => keep(result.status))
      .map(({ entry: { test } }) => `- ${test.id} (tool: ${test.tool}${test.job === undefined ? '' : `, job: ${test.job}`})`),
  ];
  return [
    `# \`${tag}\` tests`,
    ...section('List of passed tests', (status) => status === 'PASS'),
    ...section('List of failed tests', (status) => status === 'FAIL' || status === 'TIMEOUT'),
    ...section('List of unsupported tests', (status) => status === 'UNSUPPORTED'),
    '',
  ].join('\n');
}
