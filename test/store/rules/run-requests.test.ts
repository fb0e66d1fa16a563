import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cancelRecordedByClaim, cancelRequestedAt, decideContinuation, decideGateAnswer, endingOf } from '../../../src/store/rules/run-requests.js';
import type { RunEnding } from '../../../src/store/runs.js';
import { runOf, statusArb, timeArb } from './arbitraries.js';

const at = '2026-01-01T12:00:00.000Z';
const cancel: RunEnding = { kind: 'cancel_run', requestedAt: at };

describe('a gate answer', () => {
  it('is queued for a paused run with no cancel on it and no other answer open', () => {
    const run = runOf('paused');
    expect(decideGateAnswer(run, { ending: undefined, openAnswer: undefined })).toEqual({ queue: true, run });
  });

  it('is refused, saying why, for a run that is not paused, that a cancel will end, or already answered', () => {
    const paused = runOf('paused');
    expect(decideGateAnswer(runOf('running'), { ending: undefined, openAnswer: undefined })).toEqual({ queued: false, run: runOf('running') });
    expect(decideGateAnswer(undefined, { ending: undefined, openAnswer: undefined })).toEqual({ queued: false, run: undefined });
    expect(decideGateAnswer(paused, { ending: cancel, openAnswer: 'approve_run' })).toEqual({ queued: false, run: paused, ending: cancel });
    expect(decideGateAnswer(paused, { ending: undefined, openAnswer: 'reject_run' })).toEqual({ queued: false, run: paused, open: 'reject_run' });
  });
});

describe('a continuation (resume)', () => {
  it('is queued for a run in one of the named statuses that no cancel or abandon will end', () => {
    const failed = runOf('failed');
    expect(decideContinuation(failed, ['failed', 'paused'], undefined)).toEqual({ queue: true, run: failed });
    expect(decideContinuation(failed, ['paused'], undefined)).toEqual({ queued: false, run: failed });
    const abandon: RunEnding = { kind: 'abandon_run', requestedAt: at };
    expect(decideContinuation(failed, ['failed'], abandon)).toEqual({ queued: false, run: failed, ending: abandon });
  });

  it('property: neither a gate answer nor a continuation is ever queued while a cancel is open', () => {
    fc.assert(
      fc.property(statusArb, fc.uniqueArray(statusArb), timeArb, (status, from, when) => {
        const ending: RunEnding = { kind: 'cancel_run', requestedAt: when };
        expect('queue' in decideGateAnswer(runOf(status), { ending, openAnswer: undefined })).toBe(false);
        expect('queue' in decideContinuation(runOf(status), from, ending)).toBe(false);
      }),
    );
  });
});

describe('the cancel request of a run', () => {
  it('is the recorded one, else a queued cancel of a run that has not ended', () => {
    expect(cancelRequestedAt('2026-01-01T11:00:00.000Z', { created_at: at }, 'running')).toBe('2026-01-01T11:00:00.000Z');
    expect(cancelRequestedAt(null, { created_at: at }, 'running')).toBe(at);
    expect(cancelRequestedAt(null, { created_at: at }, 'completed')).toBeNull();
    expect(cancelRequestedAt(null, undefined, 'running')).toBeNull();
  });

  it('is recorded by claiming a cancel or abandon job of a run, as of when it was asked, and by no other claim', () => {
    expect(cancelRecordedByClaim({ kind: 'cancel_run', run_id: 'r', created_at: at })).toBe(at);
    expect(cancelRecordedByClaim({ kind: 'abandon_run', run_id: 'r', created_at: at })).toBe(at);
    expect(cancelRecordedByClaim({ kind: 'resume_run', run_id: 'r', created_at: at })).toBeUndefined();
    expect(cancelRecordedByClaim({ kind: 'cancel_run', run_id: null, created_at: at })).toBeUndefined();
  });

  it('names the open cancelling job as the run’s ending', () => {
    expect(endingOf({ kind: 'abandon_run', created_at: at })).toEqual({ kind: 'abandon_run', requestedAt: at });
    expect(endingOf({ kind: 'approve_run', created_at: at })).toBeUndefined();
    expect(endingOf(undefined)).toBeUndefined();
  });
});
