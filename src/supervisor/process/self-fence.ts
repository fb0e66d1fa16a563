import { performance } from 'node:perf_hooks';
import type { Logger } from '../../shared/log.js';
import { fenceVerdict } from './renew-deadline.js';

/** How often the watchdog compares the time since the last renewal with the deadline. */
const CHECK_MS = 100;

export interface SelfFenceDeps {
  /** Past this long without a successful renewal, the supervisor fences itself (renew-deadline.ts). */
  deadlineMs: number;
  /** Ends every node of the supervisor and lets its runs go; resolves once that is done. */
  fence: () => Promise<void>;
  log: Logger;
  /** A monotonic clock in ms (a wall clock set back must not postpone the fence). */
  now?: () => number;
}

/**
 * The watchdog of a supervisor's renewals, on a timer of its own: a renewal that hangs (a query
 * on a connection the network dropped can wait for minutes) cannot delay it. Past the deadline
 * it fences the supervisor once; the fence is lifted when it is complete and a renewal sent
 * after it began has gone through (the database is reachable again).
 */
export class SelfFence {
  private readonly now: () => number;
  private lastRenewedAt: number;
  private timer: NodeJS.Timeout | undefined;
  /** When the current fence began; undefined while not fenced. */
  private fencedAt: number | undefined;
  private fencing: Promise<void> | undefined;

  constructor(private readonly deps: SelfFenceDeps) {
    this.now = deps.now ?? (() => performance.now());
    this.lastRenewedAt = this.now();
  }

  /** True from the fence until it is lifted: claim nothing, take nothing over, start nothing. */
  get fenced(): boolean {
    return this.fencedAt !== undefined;
  }

  start(): void {
    this.lastRenewedAt = this.now();
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The moment a renewal is sent; hand it to `renewed` once the renewal has gone through. */
  renewalSent(): number {
    return this.now();
  }

  /** A renewal sent at `sentAt` went through: its lease runs from then at the earliest. */
  renewed(sentAt: number): void {
    if (sentAt > this.lastRenewedAt) this.lastRenewedAt = sentAt;
    if (this.fencedAt !== undefined && this.fencing === undefined && sentAt > this.fencedAt) {
      this.deps.log.info({ fencedForMs: Math.round(this.now() - this.fencedAt) }, 'supervisor.fence_lifted');
      this.fencedAt = undefined;
    }
  }

  /** Fences now if the deadline has passed (also called by the timer). */
  check(): void {
    if (this.fencedAt !== undefined) return;
    const now = this.now();
    if (fenceVerdict({ now, lastRenewedAt: this.lastRenewedAt, deadlineMs: this.deps.deadlineMs }) === 'renewed') return;
    this.fencedAt = now;
    this.deps.log.warn({ sinceRenewalMs: Math.round(now - this.lastRenewedAt), deadlineMs: this.deps.deadlineMs }, 'supervisor.fenced');
    this.fencing = this.deps
      .fence()
      .catch((err: unknown) => this.deps.log.error({ err }, 'supervisor.fence_failed'))
      .finally(() => (this.fencing = undefined));
  }
}
