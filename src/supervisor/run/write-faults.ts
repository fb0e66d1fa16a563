import { FaultBackoff, defaultFaultBackoff, type FaultBackoffPolicy } from '../../shared/fault-backoff.js';
import type { Logger } from '../../shared/log.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { NodeEntry } from './node-table.js';
import type { NodeTimers } from './node-timers.js';

/**
 * What a run does when the store cannot take its writes for now (a full disk, a database held
 * busy past the store's own wait): it waits, it is never failed for it. A scheduling pass whose
 * records were refused keeps them, unwritten, and is tried again after a back-off, the records
 * first and in their order, so a dependant still acts only on durable decisions. An attempt
 * whose record was refused before its node ran (or a held attempt, a `wait`, whose end was
 * refused) waits off the queue, like a retry that does not count, and runs again (the held one
 * continued) after the same back-off. One back-off per run, logged once per interval.
 */
export class RunWriteFaults {
  /** Decisions of a pass whose records the store refused: written first by the next pass. */
  private unwritten: NewRunEvent[] = [];
  private passRetry: NodeJS.Timeout | undefined;
  private readonly backoff: FaultBackoff;

  constructor(
    log: Logger,
    /** Asks for another scheduling pass. */
    private readonly kick: () => void,
    policy: FaultBackoffPolicy = defaultFaultBackoff,
  ) {
    this.backoff = new FaultBackoff(log, { failed: 'run.store_write_failed', recovered: 'run.store_write_recovered' }, policy);
  }

  /** The pass's decisions, after those a refused pass left unwritten. */
  withUnwritten(decided: NewRunEvent[]): NewRunEvent[] {
    if (this.unwritten.length === 0) return decided;
    const all = [...this.unwritten, ...decided];
    this.unwritten = [];
    return all;
  }

  /** The store refused the pass's records: they are kept, and a pass is asked for after the back-off. */
  passRefused(err: unknown, events: NewRunEvent[]): void {
    this.unwritten = events;
    const delayMs = this.backoff.failed(err);
    if (this.passRetry) return;
    this.passRetry = setTimeout(() => {
      this.passRetry = undefined;
      this.kick();
    }, delayMs);
    // Never what keeps a process alive: a run let go meanwhile is driven again by whoever takes it.
    this.passRetry.unref();
  }

  /** The store refused an attempt's record: the node waits off the queue and runs again after the back-off. */
  attemptDeferred(entry: NodeEntry, err: unknown, timers: NodeTimers): void {
    timers.retryAfter(entry, this.backoff.failed(err, { nodeId: entry.plan.id }));
  }

  /** A write of the run went through: the back-off starts again from its first delay. */
  succeeded(): void {
    this.backoff.succeeded();
  }
}
