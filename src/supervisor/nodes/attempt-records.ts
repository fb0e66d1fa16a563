import { attemptEndedEvent, type AttemptRef } from '../../records/index.js';
import type { FailureKind } from '../../records/schemas/node-lifecycle.js';
import type { Invocation } from '../../records/schemas/execution-record.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { Logger } from '../../shared/log.js';
import type { AttemptResult } from '../../worker/attempt-protocol.js';
import { attemptRefOf, type AttemptFacts } from '../../worker/attempt-ref.js';
import { attemptCloser } from '../../worker/attempt-closer.js';
import type { AttemptIdentity, AttemptOutcome, NodeAttempt } from '../run/node-handler.js';

/** The record reference of an attempt a supervisor-side handler owns, through the one attemptRefOf (worker/attempt-ref.ts). */
export function nodeAttemptRef(run: Pick<Run, 'id' | 'conversation_id'>, attempt: NodeAttempt, startedAt: string): AttemptRef {
  return attemptRefOf(attemptFactsOf(run, attempt), attempt.node.descriptor, startedAt);
}

/** Which attempt a scheduler's attempt is, as its records and its worker task name it. */
export function attemptFactsOf(run: Pick<Run, 'id' | 'conversation_id'>, attempt: NodeAttempt): AttemptFacts & { invocation: Invocation } {
  return {
    runId: run.id,
    conversationId: run.conversation_id,
    path: attempt.path,
    invocation: { ...attempt.identity.invocation, loopPath: [...(attempt.loopPath ?? [])] },
    attempt: attempt.identity.attempt,
  };
}

/**
 * The invocation keeps the checkout its first attempt found (contract: later attempts and resumed
 * continuations retain it). `identity.invocation` is the node's own invocation, so its retries
 * send the sample on to their worker, which records it on every row of the invocation.
 */
export function keepFirstCheckout(identity: AttemptIdentity, result: Pick<AttemptResult, 'checkoutStart'>): void {
  if (identity.attempt.number === 1 && result.checkoutStart !== undefined) identity.invocation.checkoutStart ??= result.checkoutStart;
}

/**
 * Closes an attempt that failed before it could run (a body that cannot be substituted, a node
 * kind with no executor): its terminal record, with no time spent.
 */
export async function recordRefusedAttempt(
  store: Store,
  run: Pick<Run, 'id' | 'conversation_id'>,
  attempt: NodeAttempt,
  failure: { error: string; failureKind: FailureKind; retryable?: false },
): Promise<{ status: 'failed'; error: string; failureKind: string; retryable?: false }> {
  const ref = nodeAttemptRef(run, attempt, new Date().toISOString());
  await attemptCloser(store).close('handler', [attemptEndedEvent(ref, { status: 'failed', ...failure }, 0)]);
  return { status: 'failed', ...failure };
}

/**
 * The pool threw (a bug, or a store that would not take the attempt's record): the attempt still
 * ends with a terminal record, transient so the retry policy can run it again, and the failure
 * is logged for whoever reads the supervisor's log.
 */
export async function closeBrokenAttempt(
  deps: { store: Store; run: Pick<Run, 'id' | 'conversation_id'>; log: Logger },
  attempt: NodeAttempt,
  startedAt: string,
  err: unknown,
): Promise<AttemptOutcome> {
  const error = `the attempt failed in its worker: ${(err as Error).message}`;
  deps.log.error({ err, nodeId: attempt.node.id, attemptId: attempt.identity.attempt.id }, 'node.attempt_crashed');
  const ending = { status: 'failed', error, failureKind: 'transient' } as const;
  await attemptCloser(deps.store)
    .close('handler', [attemptEndedEvent(nodeAttemptRef(deps.run, attempt, startedAt), ending)])
    .catch((writeErr: unknown) => deps.log.error({ err: writeErr }, 'node.attempt_record_failed'));
  return ending;
}
