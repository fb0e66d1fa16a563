/**
 * Why an attempt was stopped from outside, and how that is recorded. Shared by the thread that
 * stops its own attempt and by the pool when it has to stop one itself.
 */
export type CancelReason = 'cancelled' | 'shutdown';

export interface CancelledFailure {
  error: string;
  failureKind: 'cancelled' | 'transient';
  retryable: boolean;
  interrupted?: true;
}

/** Reads an abort reason: `'shutdown'` or `{ reason: 'shutdown' }` is a shutdown; anything else a user's cancel. */
export function cancelReasonOf(abortReason: unknown): CancelReason {
  const value =
    typeof abortReason === 'object' && abortReason !== null && 'reason' in abortReason
      ? (abortReason as { reason: unknown }).reason
      : abortReason;
  return value === 'shutdown' ? 'shutdown' : 'cancelled';
}

/**
 * A user's cancel is final. A shutdown is not the node's fault: it is recorded as a transient
 * failure so that the next supervisor runs the node again as a new attempt.
 */
export function cancelledFailure(reason: CancelReason): CancelledFailure {
  return reason === 'shutdown'
    ? {
        error: 'Interrupted by server shutdown; the node will run again when the run continues',
        failureKind: 'transient',
        retryable: true,
        interrupted: true,
      }
    : { error: 'Cancelled by user', failureKind: 'cancelled', retryable: false };
}
