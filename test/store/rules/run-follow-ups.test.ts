import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { followUpsOf, sleepFollowUps, type RunFollowUp } from '../../../src/store/rules/run-follow-ups.js';
import { isTerminal } from '../../../src/store/rules/run-ownership.js';
import { runOf, statusArb } from './arbitraries.js';

const now = '2026-01-01T12:00:00.000Z';
const kinds = (followUps: RunFollowUp[]) => followUps.map((f) => ('job' in f ? `${f.kind}:${f.job}` : f.kind));

describe('what a run’s change brings with it', () => {
  it('a run that ends closes its queued wake-up; its owner’s ending also releases its environment', () => {
    expect(followUpsOf({ run: runOf('completed'), by: 'transition', status: 'completed', now })).toEqual([
      { kind: 'close_queued', job: 'wake_run', runId: 'run-1', result: `run ended completed at ${now}` },
      { kind: 'release_isolation', runId: 'run-1' },
    ]);
    // An acquire that ends a run (a cancel of a paused one) leaves the environment to the cancel.
    expect(kinds(followUpsOf({ run: runOf('cancelled'), by: 'acquire', status: 'cancelled', now }))).toEqual(['close_queued:wake_run']);
  });

  it('a run dispatched from a chat reports its end there, once (queued only if none is)', () => {
    const run = runOf('failed', { metadata: { parent_conversation_id: 'chat-1' } });
    expect(followUpsOf({ run, by: 'acquire', status: 'failed', now })[0]).toEqual({
      kind: 'queue_job', job: 'workflow_result', runId: 'run-1', payload: { conversationId: 'chat-1' }, onlyIfNone: true,
    });
    expect(kinds(followUpsOf({ run: { ...run, status: 'paused' }, by: 'transition', status: 'paused', now }))).toEqual([]);
  });

  it('a child run that pauses or ends tells its parent, when the change named its status', () => {
    const child = runOf('paused', { parent_run_id: 'parent-1' });
    expect(followUpsOf({ run: child, by: 'transition', status: 'paused', now })).toEqual([
      { kind: 'queue_job', job: 'child_run_settled', runId: 'parent-1', payload: { childRunId: 'run-1', status: 'paused' } },
    ]);
    // A metadata-only change of a paused child says nothing new.
    expect(followUpsOf({ run: child, by: 'transition', status: undefined, now })).toEqual([]);
    expect(followUpsOf({ run: { ...child, status: 'running' }, by: 'acquire', status: 'running', now })).toEqual([]);
  });

  it('a run its owner fails while it waits out a usage limit gets its resume queued for then; nothing else does', () => {
    const at = '2026-01-01T15:00:05.000Z';
    const waiting = runOf('failed', { metadata: { auto_resume: { at, nodes: ['ask'], resume: 1, of: 3 } } });
    expect(followUpsOf({ run: waiting, by: 'transition', status: 'failed', now })).toContainEqual({
      kind: 'queue_job', job: 'resume_run', runId: 'run-1', payload: { auto: { at } }, notBefore: at,
    });
    // A metadata-only change, an acquire, or a failure without the wait queue none.
    expect(kinds(followUpsOf({ run: waiting, by: 'transition', status: undefined, now }))).not.toContain('queue_job:resume_run');
    expect(kinds(followUpsOf({ run: waiting, by: 'acquire', status: 'failed', now }))).not.toContain('queue_job:resume_run');
    expect(kinds(followUpsOf({ run: runOf('failed'), by: 'transition', status: 'failed', now }))).not.toContain('queue_job:resume_run');
  });

  it('property: every change that leaves a run ended closes its wake-up; none that leaves it open does', () => {
    fc.assert(
      fc.property(statusArb, fc.constantFrom('acquire' as const, 'transition' as const), fc.boolean(), fc.boolean(), (status, by, child, chat) => {
        const run = runOf(status, { parent_run_id: child ? 'p' : null, metadata: chat ? { parent_conversation_id: 'c' } : {} });
        const followUps = kinds(followUpsOf({ run, by, status, now }));
        expect(followUps.includes('close_queued:wake_run')).toBe(isTerminal(status));
        expect(followUps.includes('queue_job:workflow_result')).toBe(chat && isTerminal(status));
        expect(followUps.filter((f) => f === 'queue_job:child_run_settled')).toHaveLength(child && (status === 'paused' || isTerminal(status)) ? 1 : 0);
      }),
    );
  });

  it('a sleep replaces any queued wake-up with one due at its moment', () => {
    expect(sleepFollowUps('run-1', now)).toEqual([
      { kind: 'close_queued', job: 'wake_run', runId: 'run-1', result: 'superseded by a later wake-up' },
      { kind: 'queue_job', job: 'wake_run', runId: 'run-1', payload: { wakeAt: now }, notBefore: now },
    ]);
  });
});
