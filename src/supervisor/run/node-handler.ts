import type { PlannedNode } from './run-plan.js';

/** Which invocation and attempt of a node an attempt is. */
export interface AttemptIdentity {
  invocation: { id: string; startedAt: string };
  attempt: { id: string; number: number };
}

/** One attempt of one node, as the scheduler hands it to the node's handler. */
export interface NodeAttempt {
  readonly node: PlannedNode;
  /** The node's path in the run. */
  readonly path: string;
  readonly identity: AttemptIdentity;
  /** Aborted on cancel (`'cancelled'`) or shutdown (`{ reason: 'shutdown' }`). */
  readonly signal: AbortSignal;
}

/**
 * How an attempt ended, as a value. `cancelled`: stopped by a cancel or a shutdown, its record
 * written. `not_started`: stopped before anything ran, nothing recorded. Every outcome but
 * `not_started` has its attempt records written when the handler returns.
 */
export type AttemptOutcome =
  | { status: 'completed'; output: string }
  | {
      status: 'failed';
      error: string;
      failureKind: string;
      /** `false`: never retried, whatever the policy (bad credentials, no quota ...). */
      retryable?: boolean;
      /** The provider asked to wait this long before trying again. */
      retryAfterMs?: number;
    }
  | { status: 'cancelled' }
  | { status: 'not_started' };

/**
 * Runs the attempts of one node kind. The scheduler knows nothing of kinds: it asks the handler
 * set for a node's handler and awaits an outcome. A new kind (gate, wait, loop, child run,
 * fan-out, agent) is a new handler, not a change to the scheduler.
 */
export interface NodeHandler {
  runAttempt(attempt: NodeAttempt): Promise<AttemptOutcome>;
}

export interface NodeHandlerSet {
  handlerFor(node: PlannedNode): NodeHandler;
}
