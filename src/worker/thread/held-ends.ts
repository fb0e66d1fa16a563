import type { NewRunEvent, RunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';

interface HeldAppend {
  events: readonly NewRunEvent[];
  resolve: (rows: RunEvent[]) => void;
  reject: (err: unknown) => void;
}

/**
 * The terminal records of attempts that ended on this thread and are not written yet: each rides
 * in the transaction of the thread's next write, so that an attempt's end and the next node's
 * start (its `node_started`, which its child waits for) cost one commit and one fsync, not two.
 *
 * Nothing may act on a held end before it is durable: the next start on this thread commits it
 * first (same transaction, written first), and the pool asks for a flush (a `flush-ends` task,
 * pool.ts) before the supervisor writes anything itself or when no attempt followed. Until then
 * the attempt has a start and no end in the records, as while its program ran: a crash re-runs
 * it, and nothing that followed from its outcome has run or been recorded.
 */
export class HeldEnds {
  private held: HeldAppend[] = [];
  /** Closes of held ends not yet settled, by attempt id. */
  private readonly closing = new Map<string, Promise<unknown>>();
  /** Attempts whose held end was recorded (or found recorded by another writer) since last asked. */
  private recorded: string[] = [];
  /** Attempts whose held end could not be recorded (its close failed): the pool writes them. */
  private unrecorded: string[] = [];

  constructor(private readonly store: Pick<Store, 'appendEvents'>) {}

  /**
   * Holds the end of attempt `attemptId`: `close` is its closer's close, written through the
   * appender it is given (which queues the end here). Resolves once the end is queued (or the
   * close settled without queueing it), so whatever the thread writes after that writes it first.
   */
  async hold(attemptId: string, close: (via: Pick<Store, 'appendEvents'>) => Promise<unknown>): Promise<void> {
    let onQueued!: () => void;
    const queued = new Promise<void>((resolve) => (onQueued = resolve));
    const via: Pick<Store, 'appendEvents'> = {
      appendEvents: (events) =>
        new Promise<RunEvent[]>((resolve, reject) => {
          this.held.push({ events, resolve, reject });
          onQueued();
        }),
    };
    const settled = close(via)
      .then(
        () => {
          this.recorded.push(attemptId);
        },
        () => {
          this.unrecorded.push(attemptId);
        },
      )
      .finally(() => this.closing.delete(attemptId));
    this.closing.set(attemptId, settled);
    await Promise.race([queued, settled]);
  }

  /**
   * Issues the held appends now, in the order they were held, before whatever the caller writes
   * next in the same tick: the store commits appends of one tick together, in call order.
   */
  release(): void {
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    for (const h of held) this.store.appendEvents(h.events).then(h.resolve, h.reject);
  }

  /**
   * Writes every held end and waits until each close has settled; answers the attempts whose end
   * could not be recorded (every other end this thread held is recorded).
   */
  async flush(): Promise<string[]> {
    this.release();
    await Promise.all([...this.closing.values()]);
    const unrecorded = this.unrecorded;
    this.unrecorded = [];
    return unrecorded;
  }

  /** The attempts whose held end was recorded since last asked (the pool stops holding them). */
  takeRecorded(): string[] {
    const recorded = this.recorded;
    this.recorded = [];
    return recorded;
  }
}

/** `store`, with the held ends written before (and with) anything the thread appends. */
export function writingHeldEndsFirst(store: Store, held: HeldEnds): Store {
  return {
    ...store,
    appendEvents: (events) => {
      held.release();
      return store.appendEvents(events);
    },
  };
}
