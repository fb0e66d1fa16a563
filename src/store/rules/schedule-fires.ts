import type { OverlapPolicy } from '../schemas/schedule.js';

/**
 * What a schedule's due time becomes: the engine's rule, pure, which both backends apply inside
 * the transaction that records the fire (the schedule locked, its open runs and buffered fires
 * read there). Property-tested in test/store/rules/schedule-fires.test.ts.
 */

export interface FireFacts {
  overlap: OverlapPolicy;
  /** ms since the epoch. */
  dueAt: number;
  now: number;
  catchUpMs: number;
  /** A "run now" request: it is never missed. */
  manual: boolean;
  /** Runs this schedule started that have not ended (pending, running or paused). */
  openRunIds: readonly string[];
  /** Fires of this schedule waiting for the open run to end. */
  buffered: number;
  /** The run could not be made, and why. */
  failure?: string | undefined;
  /** The run must not be made (its workflow is interactive), and why. */
  skip?: string | undefined;
}

export type FireDecision =
  | { outcome: 'started'; cancel: readonly string[] }
  | { outcome: 'buffered' }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'missed'; reason: string }
  | { outcome: 'failed'; reason: string };

/** A cron due time found later than this after it was due is missed, not run. */
export function isMissed(facts: Pick<FireFacts, 'dueAt' | 'now' | 'catchUpMs' | 'manual'>): boolean {
  return !facts.manual && facts.now - facts.dueAt > facts.catchUpMs;
}

export function decideFire(facts: FireFacts): FireDecision {
  if (isMissed(facts)) {
    return { outcome: 'missed', reason: `found ${facts.now - facts.dueAt} ms after it was due, past the ${facts.catchUpMs} ms catch-up window` };
  }
  if (facts.failure !== undefined) return { outcome: 'failed', reason: facts.failure };
  if (facts.skip !== undefined) return { outcome: 'skipped', reason: facts.skip };
  const busy = facts.openRunIds.length > 0;
  // Buffered fires keep their order: a new one never starts ahead of them.
  const waiting = facts.buffered > 0;
  switch (facts.overlap) {
    case 'allow_all':
      return { outcome: 'started', cancel: [] };
    case 'cancel_other':
      return { outcome: 'started', cancel: [...facts.openRunIds] };
    case 'skip':
      return busy || waiting ? { outcome: 'skipped', reason: `a run of this schedule is still open (${facts.openRunIds[0] ?? 'buffered'}); overlap: skip` } : { outcome: 'started', cancel: [] };
    case 'buffer_one':
      if (waiting) return { outcome: 'skipped', reason: 'one fire is buffered already; overlap: buffer_one' };
      return busy ? { outcome: 'buffered' } : { outcome: 'started', cancel: [] };
    case 'buffer_all':
      return busy || waiting ? { outcome: 'buffered' } : { outcome: 'started', cancel: [] };
  }
}

/** Whether the oldest buffered fire starts now: only when no run of the schedule is open. */
export function mayStartBuffered(openRunIds: readonly string[], buffered: number): boolean {
  return buffered > 0 && openRunIds.length === 0;
}

/**
 * Whether a due time is looked at all: a cron due time at or before the cursor (the newest
 * decided) was passed over already. A "run now" is not bound to the cursor.
 */
export function isBeforeCursor(dueAt: string, cursorAt: string, manual: boolean): boolean {
  return !manual && dueAt <= cursorAt;
}
