import { randomUUID } from 'node:crypto';
import type { Logger } from '../../shared/log.js';
import type { AttemptResult } from '../../worker/attempt-protocol.js';
import type { NodeAttempt } from '../run/node-handler.js';
import type { PlannedAction } from '../run/run-plan.js';

/**
 * Attempts lost with their spawn helper. When the helper that started an attempt's child dies,
 * the worker kills the child's group, records the attempt interrupted and answers `failed` with
 * `interrupted` (worker/lost-attempt.ts). That is not the node's outcome: its handler runs it
 * again at once, as a new attempt of the same invocation, in the slot it holds, so the run goes
 * on as after a supervisor's death, and the lost attempt does not count against `retry:`. The
 * worker makes the MAX_HELPER_LOSSES-th loss in a row a final failure, which ends the repeats.
 */

/** The worker recorded this attempt interrupted: its spawn helper died under it. */
export function isLostAttempt(result: AttemptResult): boolean {
  return result.status === 'failed' && result.interrupted === true;
}

/** The attempt that runs after a lost one: a new attempt of the same invocation. */
export function attemptAfterLost<A extends PlannedAction>(lost: NodeAttempt<A>, result: AttemptResult, log: Logger): NodeAttempt<A> {
  const { invocation, attempt } = lost.identity;
  log.warn({ nodeId: lost.node.id, path: lost.path, attemptId: attempt.id, error: result.error }, 'node.attempt_interrupted');
  return { ...lost, identity: { invocation, attempt: { id: randomUUID(), number: attempt.number + 1 } } };
}
