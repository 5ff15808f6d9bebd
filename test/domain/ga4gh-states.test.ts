/**
 * The GA4GH state tables as pure functions (docs/ga4gh.md, "States" and "WES states"): every WES state gdflow answers,
 * from the task and job facts that make it, and the failure kinds TES and WES share (jobFailure), PREEMPTED among them,
 * which a test against a real server cannot reach cheaply (it takes losing a job's worker more often than it is restarted).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countedState, jobFailure, taskState as wesState, tesState, type TaskFacts as WesTaskFacts } from '../../src/domain/ga4gh/states.js';
import type { Job, Task } from '../../src/store/store.js';

const job = (status: string, extra: Partial<WesTaskFacts['jobs'][number]> = {}) => ({ status, exitCode: null, lastOutcome: undefined, reason: '', ...extra });
const task = (status: string, jobs: WesTaskFacts['jobs'] = [], extra: Partial<WesTaskFacts> = {}): WesTaskFacts => ({
  status,
  stopRequested: false,
  held: false,
  jobs,
  ...extra,
});

describe('WES states', () => {
  it('QUEUED, INITIALIZING, RUNNING and CANCELING while a run is not ended', () => {
    assert.equal(wesState(task('queued', [job('queued')])), 'QUEUED');
    assert.equal(wesState(task('scheduled')), 'QUEUED');
    assert.equal(wesState(task('queued', [job('queued')], { held: true })), 'INITIALIZING');
    assert.equal(wesState(task('running', [job('queued'), job('waiting')], { held: true })), 'INITIALIZING');
    assert.equal(wesState(task('running', [job('running'), job('waiting')], { held: true })), 'RUNNING');
    assert.equal(wesState(task('running', [job('succeeded'), job('queued')], { held: true })), 'RUNNING', 'between two jobs a run is still RUNNING');
    assert.equal(wesState(task('running', [job('running')], { held: true, stopRequested: true })), 'CANCELING');
    assert.equal(wesState(task('stopping', [job('running')])), 'CANCELING');
  });

  it('CANCELED, COMPLETE, and the three kinds of failure; UNKNOWN for a status it does not know', () => {
    assert.equal(wesState(task('stopped', [job('cancelled')])), 'CANCELED');
    assert.equal(wesState(task('succeeded', [job('succeeded'), job('skipped')])), 'COMPLETE');
    assert.equal(wesState(task('failed', [job('succeeded'), job('failed', { exitCode: 3, lastOutcome: 'failed' })])), 'EXECUTOR_ERROR');
    assert.equal(wesState(task('failed', [job('failed', { lastOutcome: 'out_of_memory' })])), 'EXECUTOR_ERROR');
    assert.equal(wesState(task('failed', [job('failed', { reason: 'input gdflow:x could not be placed' })])), 'SYSTEM_ERROR');
    assert.equal(wesState(task('failed', [])), 'SYSTEM_ERROR', 'a run that failed before any job (a resolver error) is a system error');
    assert.equal(
      wesState(task('failed', [job('failed', { exitCode: 1, lastOutcome: 'failed' }), job('failed', { lastOutcome: 'lost' })])),
      'PREEMPTED',
      'a lost worker is the first cause',
    );
    assert.equal(wesState(task('failed', [job('failed', { reason: 'its worker was lost 3 times' })])), 'PREEMPTED');
    assert.equal(wesState(task('paused')), 'UNKNOWN');
  });

  it('counts by status without reading jobs: failed as EXECUTOR_ERROR, running as RUNNING', () => {
    assert.deepEqual(['scheduled', 'queued', 'running', 'stopping', 'stopped', 'succeeded', 'failed'].map(countedState), [
      'QUEUED',
      'QUEUED',
      'RUNNING',
      'CANCELING',
      'CANCELED',
      'COMPLETE',
      'EXECUTOR_ERROR',
    ]);
  });
});

describe('failure kinds shared with TES', () => {
  it('jobFailure: a lost worker is PREEMPTED, an exit code or a limit EXECUTOR_ERROR, anything else SYSTEM_ERROR', () => {
    assert.equal(jobFailure({ exitCode: null, lastOutcome: 'lost', reason: '' }), 'PREEMPTED');
    assert.equal(jobFailure({ exitCode: 2, lastOutcome: 'failed', reason: 'exit code 2' }), 'EXECUTOR_ERROR');
    assert.equal(jobFailure({ exitCode: null, lastOutcome: 'timed_out', reason: '' }), 'EXECUTOR_ERROR');
    assert.equal(jobFailure({ exitCode: 1, lastOutcome: 'killed', reason: '' }), 'SYSTEM_ERROR', 'a job killed by gdflow is not its command failing');
    assert.equal(jobFailure({ exitCode: null, lastOutcome: undefined, reason: 'output x could not be stored' }), 'SYSTEM_ERROR');
  });

  it('a TES task whose job was lost more often than it is restarted is PREEMPTED', () => {
    const failed = { status: 'failed', stopRequested: false, heldBy: null } as unknown as Task;
    const lost = {
      status: 'failed',
      exitCode: null,
      reason: 'its worker was lost while it ran',
      attempts: [{ outcome: 'lost' }, { outcome: 'lost' }, { outcome: 'lost' }],
    } as unknown as Job;
    assert.equal(tesState(failed, lost), 'PREEMPTED');
    const exited = { status: 'failed', exitCode: 7, reason: 'exit code 7', attempts: [{ outcome: 'failed' }] } as unknown as Job;
    assert.equal(tesState(failed, exited), 'EXECUTOR_ERROR');
    assert.equal(tesState(failed, undefined), 'SYSTEM_ERROR');
  });
});
