import type {
  FailedLifecycle,
  FailureKind,
  Lifecycle,
  ProviderFailure,
  SkipCause,
  SkipReason,
  SkippedLifecycle,
  SuspensionPoint,
} from './schemas/node-lifecycle.js';

/**
 * Lifecycle values that are right by construction: each skip reason comes with the cause
 * kind that explains it.
 */

export function startedState(): Lifecycle {
  return { status: 'started' };
}

export function completedState(): Lifecycle {
  return { status: 'completed' };
}

export interface FailureDetails {
  /** Set to mark the failure as not retryable; omit to let the retry policy decide. */
  retryable?: false;
  failureKind?: FailureKind;
  providerFailure?: ProviderFailure;
}

export function failedState(error: string, details: FailureDetails = {}): FailedLifecycle {
  return {
    status: 'failed',
    error,
    ...(details.retryable === false ? { retryable: false as const } : {}),
    ...(details.failureKind !== undefined ? { failureKind: details.failureKind } : {}),
    ...(details.providerFailure !== undefined ? { providerFailure: details.providerFailure } : {}),
  };
}

/** Skipped because its `when:` condition evaluated false. */
export function conditionSkip(expr: string): SkippedLifecycle {
  return { status: 'skipped', reason: 'when_condition', cause: { kind: 'condition', expr } };
}

/** Skipped because its `when:` condition could not be parsed. */
export function conditionParseErrorSkip(expr: string): SkippedLifecycle {
  return { status: 'skipped', reason: 'when_condition_parse_error', cause: { kind: 'condition_parse_error', expr } };
}

/** Skipped by its trigger rule because upstream node `origin` failed or was skipped. */
export function triggerRuleSkip(upstream: 'failed' | 'skipped', origin: string): SkippedLifecycle {
  return {
    status: 'skipped',
    reason: 'trigger_rule',
    cause: { kind: upstream === 'failed' ? 'upstream_failed' : 'upstream_skipped', origin },
  };
}

/** Skipped because its deadline passed before it could start. */
export function timeoutSkip(): SkippedLifecycle {
  return { status: 'skipped', reason: 'timeout', cause: { kind: 'timeout' } };
}

export function suspendedState(point: SuspensionPoint): Lifecycle {
  return { status: 'suspended', point };
}

/** The cause kinds that can explain each skip reason (checked when a record is built). */
export const causeKindsBySkipReason: Readonly<Record<SkipReason, readonly SkipCause['kind'][]>> = {
  when_condition: ['condition'],
  when_condition_parse_error: ['condition_parse_error'],
  trigger_rule: ['upstream_failed', 'upstream_skipped'],
  timeout: ['timeout'],
  // Prior-success replays are cache records; a skip record with this reason keeps any cause.
  prior_success: ['condition', 'condition_parse_error', 'timeout', 'upstream_failed', 'upstream_skipped'],
};
