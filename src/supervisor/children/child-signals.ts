import type { RunStatus } from '../../store/schemas/run.js';

/**
 * Where a child run's pause or end reaches the parent node waiting for it in this supervisor.
 * The signal itself is durable (the child's status change queues a `child_run_settled` job in
 * the same transaction); this registry only hands the job's news to a waiter in memory. A waiter
 * watches first and reads the child's status after, so news that came before it is never lost.
 */
export class ChildRunSignals {
  private readonly waiters = new Map<string, Set<(status: RunStatus) => void>>();

  /** Calls `listener` with each status the child settles at, until the returned function is called. */
  watch(childRunId: string, listener: (status: RunStatus) => void): () => void {
    let set = this.waiters.get(childRunId);
    if (!set) this.waiters.set(childRunId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.waiters.get(childRunId) === set) this.waiters.delete(childRunId);
    };
  }

  /** Hands a child's new status to whoever waits for it here; false when nobody does. */
  notify(childRunId: string, status: RunStatus): boolean {
    const set = this.waiters.get(childRunId);
    if (!set?.size) return false;
    for (const listener of [...set]) listener(status);
    return true;
  }
}
