import type { Logger } from './log.js';

export interface FaultBackoffPolicy {
  /** The delay after the first failure in a row; it doubles with each further one. */
  firstMs: number;
  /** The longest delay. */
  maxMs: number;
  /** At most one log line per this many ms; the failures in between are counted in the next line. */
  logEveryMs: number;
}

/** 100 ms doubling to 5 s, logged at most every 30 s. */
export const defaultFaultBackoff: FaultBackoffPolicy = { firstMs: 100, maxMs: 5_000, logEveryMs: 30_000 };

/**
 * Backs off a loop whose calls fail for a reason that waiting may mend (a full disk, a database
 * held busy), and keeps its log readable: the first failure of a streak is logged at once, then
 * at most one line per `logEveryMs` carrying `suppressed` (the failures not logged since the last
 * line) and `failures` (the streak so far). The first success after a streak logs `recovered`
 * once. Without it a supervisor whose claims failed at once spun at 99 % CPU and wrote ~1,700
 * lines a second, each a stack trace.
 */
export class FaultBackoff {
  private failures = 0;
  private suppressed = 0;
  private lastLoggedAt = 0;
  private nextDelayMs: number;

  constructor(
    private readonly log: Logger,
    private readonly events: { failed: string; recovered: string },
    private readonly policy: FaultBackoffPolicy = defaultFaultBackoff,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.nextDelayMs = policy.firstMs;
  }

  /** Failures in the current streak (0 after a success). */
  get streak(): number {
    return this.failures;
  }

  /** Records a failure; returns how long to wait before trying again. */
  failed(err: unknown, fields: Record<string, unknown> = {}): number {
    const retryInMs = this.nextDelayMs;
    this.nextDelayMs = Math.min(this.nextDelayMs * 2, this.policy.maxMs);
    this.failures += 1;
    const now = this.now();
    if (this.failures === 1 || now - this.lastLoggedAt >= this.policy.logEveryMs) {
      this.log.warn({ ...fields, err, failures: this.failures, suppressed: this.suppressed, retryInMs }, this.events.failed);
      this.lastLoggedAt = now;
      this.suppressed = 0;
    } else {
      this.suppressed += 1;
    }
    return retryInMs;
  }

  /** The call succeeded: the next failure starts a new streak from the first delay. */
  succeeded(fields: Record<string, unknown> = {}): void {
    if (this.failures === 0) return;
    this.log.info({ ...fields, failures: this.failures }, this.events.recovered);
    this.failures = 0;
    this.suppressed = 0;
    this.nextDelayMs = this.policy.firstMs;
  }
}
