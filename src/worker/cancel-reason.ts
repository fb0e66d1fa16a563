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

/**
 * An abort reason that says what stopped the attempt, for its record: `{ reason: 'cancelled',
 * text: "Cancelled by node 'stop': ..." }` when a `cancel:` node ended the run, rather than a
 * user's cancel.
 */
export interface StopRequest {
  reason: CancelReason;
  text?: string;
}

/** An abort reason as a stop request: its reason, and its text when it carries one. */
export function stopRequestOf(abortReason: unknown): StopRequest {
  const text = typeof abortReason === 'object' && abortReason !== null && 'text' in abortReason ? (abortReason as { text: unknown }).text : undefined;
  return { reason: cancelReasonOf(abortReason), ...(typeof text === 'string' && text !== '' ? { text } : {}) };
}

/** The abort reason for a stop request (what AbortController.abort is given, and read back by stopRequestOf). */
export function abortReasonOf(request: StopRequest): unknown {
  if (request.reason === 'shutdown') return request.text ? { reason: 'shutdown', text: request.text } : { reason: 'shutdown' };
  return request.text ? { reason: 'cancelled', text: request.text } : 'cancelled';
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
 * failure so that the next supervisor runs the node again as a new attempt (its text, when it
 * has one, says what interrupted it: a supervisor that fenced itself).
 */
export function cancelledFailure(stop: CancelReason | StopRequest): CancelledFailure {
  const { reason, text } = typeof stop === 'string' ? { reason: stop, text: undefined } : stop;
  return reason === 'shutdown'
    ? {
        error: text ?? 'Interrupted by server shutdown; the node will run again when the run continues',
        failureKind: 'transient',
        retryable: true,
        interrupted: true,
      }
    : { error: text ?? 'Cancelled by user', failureKind: 'cancelled', retryable: false };
}
