import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acquiredHold, acquireRefusal, cancelRequestAfter, isTakeOverCandidate, isTerminal, leaseIsLive, mayDelete, mayRelease,
  mayRenewLease, maySleep, transitionedHold, transitionRefusal, type RunHold,
} from '../../../src/store/rules/run-ownership.js';
import { askArb, holdArb, ownerArb, statusArb, timeArb } from './arbitraries.js';

const now = '2026-01-01T12:00:00.000Z';
const later = '2026-01-01T12:01:00.000Z';
const earlier = '2026-01-01T11:59:00.000Z';
const hold = (over: Partial<RunHold> = {}): RunHold => ({ status: 'running', owner_id: null, lease_expires_at: null, cancel_requested_at: null, ...over });
const ask = { ownerId: 'sup-a', fromStatuses: ['running'] as const, status: 'running' as const };

describe('who may take a run (acquire)', () => {
  it('lets anyone take an unowned run in one of the asked statuses, and nobody a run in another', () => {
    expect(acquireRefusal(hold(), ask, now)).toBeUndefined();
    expect(acquireRefusal(hold({ status: 'paused' }), ask, now)).toBe('status');
    expect(acquireRefusal(undefined, ask, now)).toBe('no_such_run');
  });

  it('lets the owner, the named previous owner, or anyone once the lease lapsed take an owned run', () => {
    const owned = (owner: string, lease: string) => hold({ owner_id: owner, lease_expires_at: lease });
    expect(acquireRefusal(owned('sup-a', later), ask, now)).toBeUndefined();
    expect(acquireRefusal(owned('sup-b', later), { ...ask, previousOwner: 'sup-b' }, now)).toBeUndefined();
    expect(acquireRefusal(owned('sup-b', later), ask, now)).toBe('held');
    expect(acquireRefusal(owned('sup-b', earlier), ask, now)).toBeUndefined();
  });

  it('takes only an unowned (sleeping) run when asked onlyUnowned, never one whose lease merely lapsed', () => {
    expect(acquireRefusal(hold(), { ...ask, onlyUnowned: true }, now)).toBeUndefined();
    expect(acquireRefusal(hold({ owner_id: 'sup-b', lease_expires_at: earlier }), { ...ask, onlyUnowned: true }, now)).toBe('held');
    expect(acquireRefusal(hold({ owner_id: 'sup-a', lease_expires_at: later }), { ...ask, onlyUnowned: true }, now)).toBe('held');
  });

  it('brings an ended run back only by a resume, which clears its error and its cancel request', () => {
    const failed = hold({ status: 'failed', cancel_requested_at: earlier });
    expect(acquireRefusal(failed, { ...ask, fromStatuses: ['failed'] }, now)).toBe('ended');
    expect(acquireRefusal(failed, { ...ask, fromStatuses: ['failed'], resume: true }, now)).toBeUndefined();
    expect(acquiredHold(failed, { ...ask, fromStatuses: ['failed'], resume: true }, now, later)).toMatchObject({
      status: 'running', owner_id: 'sup-a', lease_expires_at: later, completed_at: null, clear_error: true, cancel_requested_at: null,
    });
    // Ending one (a cancel of a paused run) needs no resume, and stamps its end.
    expect(acquireRefusal(hold({ status: 'paused' }), { ...ask, fromStatuses: ['paused'], status: 'cancelled' }, now)).toBeUndefined();
    expect(acquiredHold(hold({ status: 'paused' }), { ...ask, status: 'cancelled' }, now, later).completed_at).toBe(now);
  });

  it('property: a terminal run never becomes non-terminal except by a resume', () => {
    fc.assert(
      fc.property(holdArb, askArb, timeArb, (run, a, at) => {
        if (acquireRefusal(run, a, at) !== undefined) return;
        const after = acquiredHold(run, a, at, at);
        if (isTerminal(run.status) && !isTerminal(after.status)) expect(a.resume).toBe(true);
      }),
    );
    fc.assert(
      fc.property(holdArb, ownerArb, fc.option(statusArb, { nil: undefined }), (run, owner, status) => {
        if (transitionRefusal(run, owner, status) !== undefined) return;
        const after = transitionedHold({ ...(status !== undefined ? { status } : {}) }, now);
        if (isTerminal(run.status)) expect(after.status === undefined || isTerminal(after.status)).toBe(true);
      }),
    );
  });

  it('property: an acquire keeps a cancel request unless it is a resume', () => {
    fc.assert(
      fc.property(holdArb, askArb, timeArb, (run, a, at) => {
        if (acquireRefusal(run, a, at) !== undefined) return;
        expect(acquiredHold(run, a, at, at).cancel_requested_at).toBe(a.resume ? null : run.cancel_requested_at);
      }),
    );
  });

  it('property: a run held by another under a live lease is never taken, except by naming its owner', () => {
    fc.assert(
      fc.property(holdArb, askArb, timeArb, (run, a, at) => {
        const heldByOther = leaseIsLive(run, at) && run.owner_id !== a.ownerId && run.owner_id !== a.previousOwner;
        if (heldByOther) expect(acquireRefusal(run, a, at)).not.toBeUndefined();
      }),
    );
  });
});

describe('what an owner may do with its run', () => {
  it('lets only the owner change the run, and never from an end back to a status that is not one', () => {
    const owned = hold({ owner_id: 'sup-a', lease_expires_at: later });
    expect(transitionRefusal(owned, 'sup-a', 'failed')).toBeUndefined();
    expect(transitionRefusal(owned, 'sup-b', 'failed')).toBe('not_owner');
    expect(transitionRefusal(undefined, 'sup-a', 'failed')).toBe('not_owner');
    const ended = { ...owned, status: 'failed' as const };
    expect(transitionRefusal(ended, 'sup-a', 'running')).toBe('ended');
    expect(transitionRefusal(ended, 'sup-a', undefined)).toBeUndefined();
    expect(transitionedHold({ status: 'completed', release: true }, now)).toEqual({ last_activity_at: now, status: 'completed', completed_at: now, release: true });
    expect(transitionedHold({ status: 'paused' }, now)).toEqual({ last_activity_at: now, status: 'paused', release: false });
  });

  it('lets a running run sleep only for its owner and only while no cancel is on it', () => {
    const owned = hold({ owner_id: 'sup-a', lease_expires_at: later });
    expect(maySleep(owned, 'sup-a')).toBe(true);
    expect(maySleep(owned, 'sup-b')).toBe(false);
    expect(maySleep({ ...owned, status: 'paused' }, 'sup-a')).toBe(false);
    expect(maySleep({ ...owned, cancel_requested_at: earlier }, 'sup-a')).toBe(false);
    expect(maySleep(undefined, 'sup-a')).toBe(false);
  });

  it('renews the lease of a run its owner still drives until it ends, and releases only its own', () => {
    const owned = hold({ owner_id: 'sup-a', lease_expires_at: later });
    expect(mayRenewLease(owned, 'sup-a')).toBe(true);
    expect(mayRenewLease(owned, 'sup-b')).toBe(false);
    expect(mayRenewLease({ ...owned, status: 'completed' }, 'sup-a')).toBe(false);
    expect(mayRelease(owned, 'sup-a')).toBe(true);
    expect(mayRelease(owned, 'sup-b')).toBe(false);
  });

  it('offers for take-over what the asker does not hold under a live lease, sleeping runs left out', () => {
    expect(isTakeOverCandidate(hold(), 'sup-a', now, false)).toBe(true);
    expect(isTakeOverCandidate(hold(), 'sup-a', now, true)).toBe(false);
    expect(isTakeOverCandidate(hold({ owner_id: 'sup-b', lease_expires_at: later }), 'sup-a', now, false)).toBe(true);
    expect(isTakeOverCandidate(hold({ owner_id: 'sup-a', lease_expires_at: later }), 'sup-a', now, false)).toBe(false);
    expect(isTakeOverCandidate(hold({ owner_id: 'sup-a', lease_expires_at: earlier }), 'sup-a', now, false)).toBe(true);
  });

  it('deletes only a run in one of the named statuses', () => {
    expect(mayDelete(hold({ status: 'completed' }), ['completed', 'failed'])).toBe(true);
    expect(mayDelete(hold({ status: 'running' }), ['completed', 'failed'])).toBe(false);
    expect(mayDelete(undefined, ['completed'])).toBe(false);
  });
});

describe('a cancel request', () => {
  it('records the first request on a run that has not ended, and none on one that has', () => {
    expect(cancelRequestAfter(hold(), now)).toBe(now);
    expect(cancelRequestAfter(hold({ cancel_requested_at: earlier }), now)).toBe(earlier);
    expect(cancelRequestAfter(hold({ status: 'completed' }), now)).toBeNull();
  });

  it('property: a cancel is never undone nor moved by a later request, and nothing but a resume clears it', () => {
    fc.assert(
      fc.property(holdArb, timeArb, (run, at) => {
        const after = cancelRequestAfter(run, at);
        if (run.cancel_requested_at !== null) expect(after).toBe(run.cancel_requested_at);
        if (!isTerminal(run.status)) expect(after).not.toBeNull();
      }),
    );
    fc.assert(
      fc.property(holdArb, (run) => {
        if (run.cancel_requested_at !== null) expect(maySleep(run, run.owner_id ?? 'sup-a')).toBe(false);
      }),
    );
  });
});
