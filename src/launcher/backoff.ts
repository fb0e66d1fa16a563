/** How long to wait before restarting a child that died. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** A child that stayed up at least this long is healthy again: the next delay is `initialMs`. */
  resetAfterMs: number;
}

/** 100 ms doubling to 5 s; a child that stayed up 30 s starts again from 100 ms. */
export const defaultBackoff: BackoffPolicy = { initialMs: 100, maxMs: 5_000, resetAfterMs: 30_000 };

/** A doubling back-off; `next(uptimeMs)` gives the delay before the next restart. */
export function createBackoff(policy: BackoffPolicy = defaultBackoff): { next(uptimeMs: number): number } {
  let current = policy.initialMs;
  return {
    next(uptimeMs) {
      if (uptimeMs >= policy.resetAfterMs) current = policy.initialMs;
      const delay = current;
      current = Math.min(current * 2, policy.maxMs);
      return delay;
    },
  };
}
