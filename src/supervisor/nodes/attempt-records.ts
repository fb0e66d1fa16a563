import { attemptEndedEvent, type AttemptRef } from '../../records/index.js';
import type { FailureKind } from '../../records/schemas/node-lifecycle.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { NodeAttempt } from '../run/node-handler.js';

/** The record reference of an attempt a supervisor-side handler owns. */
export function attemptRefOf(run: Pick<Run, 'id' | 'conversation_id'>, attempt: NodeAttempt, startedAt: string): AttemptRef {
  return {
    runId: run.id,
    conversationId: run.conversation_id,
    path: attempt.path,
    node: attempt.node.descriptor,
    invocation: { ...attempt.identity.invocation, loopPath: [...(attempt.loopPath ?? [])] },
    attemptId: attempt.identity.attempt.id,
    startedAt,
  };
}

/**
 * Closes an attempt that failed before it could run (a body that cannot be substituted, a node
 * kind with no executor): its terminal record, with no time spent.
 */
export async function recordRefusedAttempt(
  store: Store,
  run: Pick<Run, 'id' | 'conversation_id'>,
  attempt: NodeAttempt,
  failure: { error: string; failureKind: FailureKind },
): Promise<{ status: 'failed'; error: string; failureKind: string }> {
  const ref = attemptRefOf(run, attempt, new Date().toISOString());
  await store.appendEvents([attemptEndedEvent(ref, { status: 'failed', ...failure }, 0)]);
  return { status: 'failed', ...failure };
}
