import type { RetryPolicy } from './run-plan.js';

/** What to do after a failed attempt. */
export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** The facts of a failure the decision reads; nothing else about the attempt matters. */
export interface FailureFacts {
  failureKind?: string | undefined;
  /** `false`: retrying cannot fix it (bad credentials, no quota, a bad request); never retried. */
  retryable?: boolean | undefined;
  /** The provider's `Retry-After` (or reset time): the retry waits at least this long. */
  retryAfterMs?: number | undefined;
}

/** Failure kinds the default `on_error: transient` retries: the provider or the network may recover. */
const RETRIED_KINDS = new Set(['transient', 'rate_limited', 'overloaded']);

/**
 * Decides from data alone whether a failed attempt runs again: only with a retry policy, only
 * for a failure that waiting can fix (or any failure with `on_error: all`, except one marked
 * `retryable: false`), and only while attempts remain. The delay doubles with each attempt
 * (`delay_ms`, 2 × `delay_ms`, 4 × ...), plus a random quarter at most so that nodes failing
 * together do not retry together (`delay_ms` stays a floor), and never less than the
 * provider's Retry-After.
 */
export function decideRetry(
  policy: RetryPolicy | undefined,
  failure: FailureFacts,
  attemptsSoFar: number,
  random: () => number = Math.random,
): RetryDecision {
  if (!policy || failure.retryable === false) return { retry: false };
  const retryable = RETRIED_KINDS.has(failure.failureKind ?? '') || policy.onError === 'all';
  if (!retryable || attemptsSoFar >= policy.maxAttempts) return { retry: false };
  const backoff = policy.delayMs * 2 ** (attemptsSoFar - 1);
  const jittered = Math.round(backoff + (backoff / 4) * random());
  return { retry: true, delayMs: Math.max(jittered, failure.retryAfterMs ?? 0) };
}
