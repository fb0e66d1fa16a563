import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideAdmission, moveWaiting, type KeyRun } from '../../../src/store/rules/run-concurrency.js';
import { followUpsOf } from '../../../src/store/rules/run-follow-ups.js';
import type { Run } from '../../../src/store/schemas/run.js';

type Step = { start: 'queue' | 'refuse' | 'cancel_other' } | { end: number };

/**
 * One key's starts and endings played in order, as the store carries out the rule's decisions
 * (a cancel ends the run at once): how many runs held a place at most, and the order they got one.
 */
function play(limit: number, steps: readonly Step[]) {
  let open: KeyRun[] = [];
  let made = 0;
  let maxHolding = 0;
  const placedOrder: number[] = [];
  const endRun = (id: string) => {
    open = open.filter((run) => run.id !== id);
    const moves = moveWaiting(open);
    for (const started of moves.start) {
      open = open.map((run) => (run.id === started ? { ...run, waiting: false } : run));
      placedOrder.push(Number(started));
    }
  };
  for (const step of steps) {
    if ('start' in step) {
      const id = String(++made);
      const decision = decideAdmission({ key: 'k', limit, on_overlap: step.start }, 'demo', open);
      if (decision.outcome === 'refuse') continue;
      open.push({ id, waiting: decision.outcome === 'wait', limit });
      if (decision.outcome === 'start') placedOrder.push(made);
      if (decision.outcome === 'wait') decision.cancel.forEach(endRun);
    } else {
      const holders = open.filter((run) => !run.waiting);
      if (holders.length > 0) endRun(holders[step.end % holders.length]!.id);
    }
    maxHolding = Math.max(maxHolding, open.filter((run) => !run.waiting).length);
  }
  return { maxHolding, placedOrder, open };
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ start: fc.constantFrom('queue' as const, 'refuse' as const, 'cancel_other' as const) }),
  fc.record({ end: fc.nat({ max: 7 }) }),
);

describe('a workflow\'s concurrency policy (rules/run-concurrency.ts)', () => {
  it('never lets more runs than the limit hold a place, gives places in the order runs came, and leaves no run waiting beside a free place', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(stepArb, { maxLength: 40 }), (limit, steps) => {
        const { maxHolding, placedOrder, open } = play(limit, steps);
        expect(maxHolding).toBeLessThanOrEqual(limit);
        expect([...placedOrder].sort((a, b) => a - b)).toEqual(placedOrder);
        const holding = open.filter((run) => !run.waiting).length;
        if (open.some((run) => run.waiting)) expect(holding).toBe(limit);
      }),
    );
  });

  it('queue: the new run waits for the runs holding the places, after those waiting already', () => {
    const open: KeyRun[] = [{ id: 'a', waiting: false, limit: 1 }, { id: 'b', waiting: true, limit: 1 }];
    expect(decideAdmission({ key: 'pr-1', limit: 1, on_overlap: 'queue' }, 'review', open)).toEqual({ outcome: 'wait', waitingFor: ['a'], position: 2, cancel: [] });
    expect(decideAdmission({ key: 'pr-1', limit: 2, on_overlap: 'queue' }, 'review', [open[0]!])).toEqual({ outcome: 'start' });
  });

  it('refuse: the answer names the key and the runs holding the places and says what to do', () => {
    const decision = decideAdmission({ key: 'pr-1', limit: 1, on_overlap: 'refuse' }, 'review', [{ id: 'a', waiting: false, limit: 1 }]);
    expect(decision).toMatchObject({ outcome: 'refuse', holders: ['a'] });
    expect(decision.outcome === 'refuse' && decision.reason).toBe(
      `Workflow 'review' allows 1 run at a time for concurrency key "pr-1" (on_overlap: refuse), and a holds its one place; start it again once that run has ended, or cancel it`,
    );
  });

  it('refuse of a resume: the same answer, saying to resume the run again', () => {
    const decision = decideAdmission({ key: 'pr-1', limit: 1, on_overlap: 'refuse' }, 'review', [{ id: 'a', waiting: false, limit: 1 }], 'resume');
    expect(decision.outcome === 'refuse' && decision.reason).toMatch(/holds its one place; resume it again once that run has ended, or cancel it$/);
  });

  it('cancel_other: the oldest holders, enough for one place, and every older waiter are cancelled', () => {
    const open: KeyRun[] = [
      { id: 'a', waiting: false, limit: 2 },
      { id: 'b', waiting: false, limit: 2 },
      { id: 'c', waiting: true, limit: 2 },
    ];
    expect(decideAdmission({ key: 'k', limit: 2, on_overlap: 'cancel_other' }, 'w', open)).toEqual({ outcome: 'wait', waitingFor: ['a'], position: 1, cancel: ['c', 'a'] });
  });

  it('a run of a key that ends, by any change, brings the start of the waiting runs with it; one without a key does not', () => {
    const run = { id: 'r', workflow_name: 'review', status: 'completed', parent_run_id: null, metadata: { concurrency: { key: 'pr-1', limit: 1, on_overlap: 'queue' } } } as unknown as Run;
    const now = new Date().toISOString();
    expect(followUpsOf({ run, by: 'acquire', status: 'cancelled', now })).toContainEqual({ kind: 'start_waiting', workflowName: 'review', key: 'pr-1', endedRunId: 'r' });
    expect(followUpsOf({ run: { ...run, status: 'paused' }, by: 'transition', status: 'paused', now }).map((f) => f.kind)).not.toContain('start_waiting');
    expect(followUpsOf({ run: { ...run, metadata: {} }, by: 'transition', status: 'completed', now }).map((f) => f.kind)).not.toContain('start_waiting');
  });
});
