import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, nearestName, unknownMemberReason } from '../../src/domain/nearest-name.js';

describe('nearest name (did you mean ...?)', () => {
  it('counts edits, a swap of neighbours as one', () => {
    assert.equal(editDistance('formats', 'formats'), 0);
    assert.equal(editDistance('fromats', 'formats'), 1);
    assert.equal(editDistance('fomats', 'formats'), 1);
    assert.equal(editDistance('formatss', 'formats'), 1);
    assert.equal(editDistance('stdout', 'stdin'), 3);
    assert.equal(editDistance('', 'abc'), 3);
  });

  it('suggests the nearest known name when it is near, ignoring case, and nothing otherwise', () => {
    const known = ['name', 'type', 'formats', 'minitems', 'maxitems', 'required', 'stdin'];
    assert.equal(nearestName('fromats', known), 'formats');
    assert.equal(nearestName('Formats', known), 'formats');
    assert.equal(nearestName('maxitem', known), 'maxitems');
    assert.equal(nearestName('stdout', known), 'stdin');
    assert.equal(nearestName('colour', known), undefined);
    assert.equal(nearestName('x'.repeat(10_000), known), undefined);
  });

  it('names the member, the object and the nearest known member, or lists the known ones', () => {
    assert.equal(
      unknownMemberReason('inputs.reads', 'fromats', ['formats', 'hint'], 'input definition'),
      'inputs.reads.fromats is not a member of an input definition; did you mean formats?',
    );
    assert.equal(
      unknownMemberReason('parameters.t', 'colour', ['default', 'hint'], 'parameter definition'),
      'parameters.t.colour is not a member of a parameter definition; its members are default, hint',
    );
  });
});
