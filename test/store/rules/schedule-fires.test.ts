import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideFire, isBeforeCursor, mayStartBuffered, type FireFacts } from '../../../src/store/rules/schedule-fires.js';
import { overlapPolicySchema } from '../../../src/store/schemas/schedule.js';

const factsArb: fc.Arbitrary<FireFacts> = fc.record({
  overlap: fc.constantFrom(...overlapPolicySchema.options),
  dueAt: fc.integer({ min: 0, max: 10_000_000 }),
  now: fc.integer({ min: 0, max: 10_000_000 }),
  catchUpMs: fc.integer({ min: 0, max: 5_000_000 }),
  manual: fc.boolean(),
  openRunIds: fc.uniqueArray(fc.constantFrom('r1', 'r2', 'r3'), { maxLength: 3 }),
  buffered: fc.nat({ max: 3 }),
  failure: fc.option(fc.constant('workflow gone'), { nil: undefined }),
});

/** One schedule's fires played in order, the open runs ending at random moments: what the store would do. */
function play(overlap: FireFacts['overlap'], steps: readonly ('fire' | 'end')[]) {
  let open: string[] = [];
  let buffered = 0;
  let started = 0;
  let maxOpen = 0;
  for (const step of steps) {
    if (step === 'end') {
      open = open.slice(1);
      if (mayStartBuffered(open, buffered)) {
        buffered--;
        open.push(`r${++started}`);
      }
    } else {
      const decision = decideFire({ overlap, dueAt: 0, now: 0, catchUpMs: 0, manual: false, openRunIds: open, buffered });
      if (decision.outcome === 'buffered') buffered++;
      if (decision.outcome === 'started') {
        open = open.filter((id) => !decision.cancel.includes(id));
        open.push(`r${++started}`);
      }
    }
    maxOpen = Math.max(maxOpen, open.length);
  }
  return { maxOpen, buffered, started };
}

describe('the overlap rule of a schedule', () => {
  it('misses exactly the cron due times found later than the catch-up window; run now is never missed', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const missed = decideFire(facts).outcome === 'missed';
        expect(missed).toBe(!facts.manual && facts.now - facts.dueAt > facts.catchUpMs);
      }),
    );
  });

  it('never starts a run that could not be made, and starts only the policy allows', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const decision = decideFire(facts);
        if (facts.failure !== undefined) expect(['missed', 'failed']).toContain(decision.outcome);
        if (decision.outcome !== 'started') return;
        const clear = facts.openRunIds.length === 0 && facts.buffered === 0;
        expect(clear || facts.overlap === 'allow_all' || facts.overlap === 'cancel_other').toBe(true);
        // cancel_other cancels every open run of the schedule, and nothing else does.
        expect(decision.cancel).toEqual(facts.overlap === 'cancel_other' ? facts.openRunIds : []);
      }),
    );
  });

  it('keeps at most one run open under skip, buffer_one, buffer_all and cancel_other, whatever the order of fires and ends', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('skip', 'buffer_one', 'buffer_all', 'cancel_other' as const),
        fc.array(fc.constantFrom('fire' as const, 'end' as const), { maxLength: 40 }),
        (overlap, steps) => {
          const { maxOpen, buffered } = play(overlap, steps);
          expect(maxOpen).toBeLessThanOrEqual(1);
          if (overlap === 'buffer_one') expect(buffered).toBeLessThanOrEqual(1);
          if (overlap === 'skip' || overlap === 'cancel_other') expect(buffered).toBe(0);
        },
      ),
    );
  });

  it('loses no fire under buffer_all and allow_all: each one starts (at once or when the open run ends)', () => {
    fc.assert(
      fc.property(fc.constantFrom('buffer_all', 'allow_all' as const), fc.array(fc.constantFrom('fire' as const, 'end' as const), { maxLength: 40 }), (overlap, steps) => {
        const { started, buffered } = play(overlap, steps);
        expect(started + buffered).toBe(steps.filter((s) => s === 'fire').length);
      }),
    );
  });

  it('looks only after the cursor for cron due times, anywhere for run now', () => {
    expect(isBeforeCursor('2026-01-01T03:00:00.000Z', '2026-01-01T03:00:00.000Z', false)).toBe(true);
    expect(isBeforeCursor('2026-01-01T03:00:01.000Z', '2026-01-01T03:00:00.000Z', false)).toBe(false);
    expect(isBeforeCursor('2026-01-01T02:00:00.000Z', '2026-01-01T03:00:00.000Z', true)).toBe(false);
  });
});
