import { clockNow } from '../../shared/clock.js';
import type { NodeEntry } from './node-table.js';

/**
 * Nodes off the queue until a moment, holding no slot: waiting out a retry delay (status
 * `retry_wait`) or at a `wait` node (status `waiting`). When its timer fires a node becomes ready
 * and `onReady` takes it; let go (a stop, a pause, a sleep), it goes back to pending, and its
 * record (retry count, wake moment) tells whoever drives the run next where it was.
 */
export class NodeTimers {
  private readonly retries = new Map<NodeEntry, NodeJS.Timeout>();
  private readonly waits = new Map<NodeEntry, { timer: NodeJS.Timeout; wakeAt: number }>();

  constructor(private readonly onReady: (entry: NodeEntry) => void) {}

  get retrying(): number {
    return this.retries.size;
  }

  get waiting(): number {
    return this.waits.size;
  }

  /** The earliest moment a waiting node wakes (epoch ms); undefined when none waits. */
  get earliestWake(): number | undefined {
    return this.waits.size ? Math.min(...[...this.waits.values()].map((w) => w.wakeAt)) : undefined;
  }

  retryAfter(entry: NodeEntry, delayMs: number): void {
    entry.status = 'retry_wait';
    const timer = setTimeout(() => {
      this.retries.delete(entry);
      delete entry.retryAt;
      this.fire(entry);
    }, delayMs);
    this.retries.set(entry, timer);
  }

  /** A `wait` node: the same attempt continues at `wakeAt`. */
  waitUntil(entry: NodeEntry, wakeAt: number): void {
    entry.status = 'waiting';
    const timer = setTimeout(() => {
      this.waits.delete(entry);
      this.fire(entry);
    }, Math.max(0, wakeAt - clockNow()));
    this.waits.set(entry, { timer, wakeAt });
  }

  /** Every timer is dropped and its node goes back to pending. */
  letGo(): void {
    for (const [entry, timer] of this.retries) {
      clearTimeout(timer);
      entry.status = 'pending';
    }
    this.retries.clear();
    for (const [entry, { timer }] of this.waits) {
      clearTimeout(timer);
      entry.status = 'pending';
    }
    this.waits.clear();
  }

  private fire(entry: NodeEntry): void {
    entry.status = 'ready';
    this.onReady(entry);
  }
}
