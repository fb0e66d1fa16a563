import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideIsolationClaim, isIdle, isLockLive, mayLock } from '../../../src/store/rules/isolation-locks.js';
import type { IsolationEnvironment } from '../../../src/store/schemas/codebase.js';
import { timeArb } from './arbitraries.js';

const now = '2026-01-01T12:00:00.000Z';
const later = '2026-01-01T12:00:15.000Z';
const earlier = '2026-01-01T11:59:00.000Z';
const env = (id: string, over: Partial<IsolationEnvironment> = {}): IsolationEnvironment => ({
  id, codebase_id: 'o/r', workflow_type: 'run', workflow_id: id, provider: 'worktree', working_path: `/wt/${id}`,
  branch_name: null, created_by_platform: 'cairn', metadata: {}, status: 'active', locked_by_run: null, lock_owner: null,
  lock_expires_at: null, created_at: now, updated_at: now, ...over,
} as IsolationEnvironment);

describe('isolation locks', () => {
  it('locks the run’s own environment again when free, its own or lapsed, and refuses one another run holds', () => {
    const base = { runId: 'run-1', now, onBranch: undefined, checkoutUses: [] };
    expect(decideIsolationClaim({ ...base, existing: env('e1') })).toMatchObject({ kind: 'lock_existing' });
    expect(decideIsolationClaim({ ...base, existing: env('e1', { locked_by_run: 'run-1', lock_expires_at: later }) })).toMatchObject({ kind: 'lock_existing' });
    expect(decideIsolationClaim({ ...base, existing: env('e1', { locked_by_run: 'run-2', lock_expires_at: earlier }) })).toMatchObject({ kind: 'lock_existing' });
    expect(decideIsolationClaim({ ...base, existing: env('e1', { locked_by_run: 'run-2', lock_expires_at: later }) })).toMatchObject({ kind: 'locked', env: { id: 'e1' } });
  });

  it('records a new environment unless another has the branch or another run holds the checkout under a live lock', () => {
    const base = { runId: 'run-1', now, existing: undefined };
    expect(decideIsolationClaim({ ...base, onBranch: undefined, checkoutUses: [] })).toEqual({ kind: 'create' });
    expect(decideIsolationClaim({ ...base, onBranch: env('e2', { branch_name: 'feat' }), checkoutUses: [] })).toMatchObject({ kind: 'branch_held', env: { id: 'e2' } });
    const use = (run: string, until: string) => env(`use-${run}`, { provider: 'checkout', locked_by_run: run, lock_expires_at: until });
    expect(decideIsolationClaim({ ...base, onBranch: undefined, checkoutUses: [use('run-2', later)] })).toMatchObject({ kind: 'locked', env: { id: 'use-run-2' } });
    expect(decideIsolationClaim({ ...base, onBranch: undefined, checkoutUses: [use('run-2', earlier), use('run-1', later)] })).toEqual({ kind: 'create' });
  });

  it('property: an environment is idle exactly when no lock on it is live, and a live lock of another run is never taken', () => {
    const lockArb = fc.record({ locked_by_run: fc.option(fc.constantFrom('run-1', 'run-2'), { nil: null }), lock_expires_at: fc.option(timeArb, { nil: null }) });
    fc.assert(
      fc.property(lockArb, timeArb, (lock, at) => {
        const held = lock.locked_by_run !== null && (lock.lock_expires_at === null || lock.lock_expires_at >= at);
        expect(isIdle(lock, at)).toBe(!held);
        if (isLockLive(lock, at) && lock.locked_by_run !== 'run-1') expect(mayLock(lock, 'run-1', at)).toBe(false);
      }),
    );
  });
});
