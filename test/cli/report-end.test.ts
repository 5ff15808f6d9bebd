import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobFailure } from '../../src/cli/follow-task.js';

describe('how the CLI says why a job failed', () => {
  it('names the exit code once', () => {
    assert.equal(jobFailure({ exit_code: 1, reason: 'exit code 1' }), 'failed: exit code 1');
    assert.equal(jobFailure({ exit_code: 137, reason: 'killed by SIGKILL (exit code 137)' }), 'failed: killed by SIGKILL (exit code 137)');
    assert.equal(
      jobFailure({ exit_code: 2, reason: 'output /var/data/x.bam was not written' }),
      'failed with exit code 2: output /var/data/x.bam was not written',
    );
    assert.equal(jobFailure({ exit_code: null, reason: 'timed out after 5 s' }), 'failed: timed out after 5 s');
    assert.equal(jobFailure({ exit_code: 3, reason: '' }), 'failed with exit code 3');
  });
});
