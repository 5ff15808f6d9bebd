import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, nearestName, unknownMemberReason } from '../../src/domain/nearest-name.js';

describe('nearest name', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    const cases: Array<[string, string, number]> = [
      ['', '', 0],
      ['abc', '', 3],
      ['copyrads', 'copyreads', 1],
      ['copyreads', 'copyrads', 1],
      ['cpoy', 'copy', 1],
      ['lenght_required', 'length_required', 1],
      ['kitten', 'sitting', 3],
      ['load_reads', 'load_reads', 0],
    ];
    for (const [a, b, distance] of cases) assert.equal(editDistance(a, b), distance, `${a} ~ ${b}`);
  });

  it('suggests a near name, ignoring case; a prefix when the shorter has 3 characters or more; nothing when none is near', () => {
    assert.equal(nearestName('copyread', ['Hello', 'copyreads', 'wftool']), 'copyreads');
    assert.equal(nearestName('COPYREADS', ['copyreads']), 'copyreads');
    assert.equal(nearestName('bwa', ['bwa_mem', 'samtools_sort']), 'bwa_mem');
    assert.equal(nearestName('sample1.fastq', ['sample1.fastq.gz', 'sample2.fastq.gz']), 'sample1.fastq.gz');
    assert.equal(nearestName('fastqc', ['bwa_mem', 'samtools_sort']), undefined);
    assert.equal(nearestName('ab', ['abc', 'abcd']), 'abc', 'one edit is always allowed');
    assert.equal(nearestName('x', []), undefined);
    // Typos rank before prefixes: 'save' is one edit from 'sav'; 'saved_bam' only starts with it.
    assert.equal(nearestName('sav', ['saved_bam', 'save']), 'save');
    // The exact name is not its own suggestion.
    assert.equal(nearestName('copy', ['copy']), undefined);
  });

  it('names an unknown member, the object and the nearest known member, or lists the known ones', () => {
    assert.equal(
      unknownMemberReason('inputs.reads', 'fromats', ['formats', 'hint'], 'input definition'),
      'inputs.reads.fromats is not a member of an input definition; did you mean formats?',
    );
    assert.equal(
      unknownMemberReason('parameters.t', 'colour', ['default', 'hint'], 'parameter definition'),
      'parameters.t.colour is not a member of a parameter definition; its members are default, hint',
    );
    const long = 'f'.repeat(1_000_000);
    const reason = unknownMemberReason('inputs.reads', long, ['formats'], 'input definition');
    assert.equal(reason, `inputs.reads.${'f'.repeat(57)}... is not a member of an input definition; its members are formats`);
  });
});
