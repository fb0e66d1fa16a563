import type { Store } from '../../store/store.js';
import type { WorkerPool } from '../../worker/pool/pool.js';

/**
 * The supervisor's Store, each of whose calls first waits, while the worker thread holds
 * attempts' terminal records (worker/thread/held-ends.ts), until they are recorded. The engine
 * acts on an attempt's outcome as soon as the thread answers; whatever it writes or reads from
 * then on (a skip record, the run's end, a gate, a retry's record) must come after that
 * attempt's end in the log, so that a crash never leaves a record that follows from an outcome
 * that was lost. Nothing waits when nothing is held (the common case between runs, and on a
 * chain, where the next node's start writes the end).
 *
 * The polls and lease renewals below do not wait: they record nothing that follows from an
 * attempt's outcome (what a claimed job then does goes through here), and the job runner claims
 * after every commit it sees, so waiting there would flush each held end on its own.
 */
const UNORDERED = new Set(['onChange', 'claimJob', 'msUntilNextDueJob', 'renewJobLeases', 'renewRunLeases', 'writeHeartbeat', 'listHeartbeats']);

export function afterHeldEnds(store: Store, pool: Pick<WorkerPool, 'endsHeld' | 'endsRecorded'>): Store {
  const wrapped: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(store)) {
    if (typeof member !== 'function' || UNORDERED.has(name)) {
      wrapped[name] = member;
      continue;
    }
    const call = member as (...args: unknown[]) => unknown;
    wrapped[name] = (...args: unknown[]) => (pool.endsHeld() ? pool.endsRecorded().then(() => call(...args)) : call(...args));
  }
  return wrapped as unknown as Store;
}
