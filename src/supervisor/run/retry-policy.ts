import type { RetryPolicy } from './run-plan.js';

/** What to do after a failed attempt. */
export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** The facts of a failure the decision reads; nothing else about the attempt matters. */
export interface FailureFacts {
  failureKind?: string | undefined;
}

/**
 * Decides from data alone whether a failed attempt runs again: only with a `retry:` block, only
 * for a transient failure (or any failure with `on_error: all`), and only while attempts remain.
 * The delay doubles with each attempt: `delay_ms`, 2 × `delay_ms`, 4 × ...
 */
export function decideRetry(policy: RetryPolicy | undefined, failure: FailureFacts, attemptsSoFar: number): RetryDecision {
  if (!policy) return { retry: false };
  const retryable = failure.failureKind === 'transient' || policy.onError === 'all';
  if (!retryable || attemptsSoFar >= policy.maxAttempts) return { retry: false };
  return { retry: true, delayMs: policy.delayMs * 2 ** (attemptsSoFar - 1) };
}
