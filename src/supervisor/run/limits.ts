import PQueue from 'p-queue';

/**
 * The global limit on node attempts in flight. p-queue runs at most `limit` tasks at once; a
 * task holds its slot from before its process is spawned until after the process has exited and
 * its record is written, so "a limit of 10" means 10 processes at most, never 11.
 */
export class AttemptLimiter {
  private readonly queue: PQueue;

  constructor(readonly limit: number) {
    this.queue = new PQueue({ concurrency: limit });
  }

  /**
   * Runs `fn` when a slot is free. If `signal` aborts before then, the task is dropped when it
   * reaches the front, without running. The signal is deliberately not handed to p-queue: p-queue
   * rejects a *running* task on abort and frees its slot while the task's process may still be
   * alive, which would break both the limit and "cancel waits for the processes to be gone".
   */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.queue.add(() => {
      signal?.throwIfAborted();
      return fn();
    });
  }

  /**
   * Like `run`, but a task dropped because `signal` aborted before it started resolves as
   * `{ dropped: true }` instead of rejecting, so a caller tells "never ran" from "failed".
   */
  async runUnlessAborted<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<{ dropped: true } | { dropped: false; value: T }> {
    let started = false;
    try {
      const value = await this.run(() => {
        started = true;
        return fn();
      }, signal);
      return { dropped: false, value };
    } catch (err) {
      if (!started && signal.aborted) return { dropped: true };
      throw err;
    }
  }

  get active(): number {
    return this.queue.pending;
  }

  get queued(): number {
    return this.queue.size;
  }

  /** Resolves when nothing is queued or running. */
  onIdle(): Promise<void> {
    return this.queue.onIdle();
  }
}
