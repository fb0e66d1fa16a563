/**
 * A run's own concurrency limit (`concurrency.perRun`): how many of its node attempts may be in
 * flight at once. The scheduler takes a slot for each node it launches (except nodes that only
 * wait for other runs, which hold none), and an in-run fan-out takes one for each instance node it
 * runs, so a fan-out inside a run stays inside the run's limit. Work outside the scheduler waits
 * in line for a slot; a freed slot goes to that line first, else the scheduler is told.
 */
export class RunSlots {
  private used = 0;
  private readonly line: (() => void)[] = [];
  /** Called when a slot frees and nobody waits in line: the scheduler's next pass. */
  onFree: () => void = () => {};

  constructor(readonly limit: number) {}

  get free(): boolean {
    return this.used < this.limit && this.line.length === 0;
  }

  /** The scheduler launched a node (it checked `free` first). */
  take(): void {
    this.used += 1;
  }

  /** A slot is given back: to the first in line, else freed. */
  release(): void {
    const next = this.line.shift();
    if (next) return next();
    this.used = Math.max(0, this.used - 1);
    this.onFree();
  }

  /**
   * Runs `fn` in a slot, waiting in line for one; undefined when `signal` aborts first (then
   * nothing ran and no slot is held).
   */
  async run<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
    if (signal.aborted) return undefined;
    if (this.used < this.limit && this.line.length === 0) {
      this.used += 1;
    } else {
      const got = await new Promise<boolean>((resolve) => {
        const grant = () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        };
        const onAbort = () => {
          const index = this.line.indexOf(grant);
          if (index >= 0) this.line.splice(index, 1);
          resolve(false);
        };
        this.line.push(grant);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      if (!got) return undefined;
    }
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
