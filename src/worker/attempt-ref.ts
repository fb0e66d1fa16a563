import type { AttemptRef } from '../records/index.js';
import type { CheckoutObservation } from '../records/schemas/checkout-observation.js';
import type { LoopFrame } from '../records/schemas/execution-record.js';
import type { NodeDescriptor } from '../records/schemas/node-descriptor.js';

/** Which attempt of which node invocation, as every writer of an attempt's records knows it. */
export interface AttemptFacts {
  runId: string;
  conversationId: string;
  /** The node's path in the run. */
  path: string;
  invocation: { id: string; startedAt: string; loopPath?: readonly LoopFrame[] | undefined; checkoutStart?: CheckoutObservation | undefined };
  attempt: { id: string; number: number };
}

/**
 * The record reference of an attempt: the one every writer of an attempt's records builds it
 * with (the thread that runs it, the pool that closes it for a thread that could not, the
 * supervisor-side handlers, a take-over). With the attempt's checkout sample: the invocation
 * keeps the sample of its first attempt (sent back by the supervisor on later attempts); a later
 * attempt whose first sample is unknown (after a take-over) leaves the invocation's out.
 */
export function attemptRefOf(facts: AttemptFacts, node: NodeDescriptor, startedAt: string, checkout?: CheckoutObservation): AttemptRef {
  const { checkoutStart: first, loopPath, ...invocation } = facts.invocation;
  const invocationCheckout = first ?? (facts.attempt.number === 1 ? checkout : undefined);
  return {
    runId: facts.runId,
    conversationId: facts.conversationId,
    path: facts.path,
    node,
    invocation: { ...invocation, loopPath: [...(loopPath ?? [])], ...(invocationCheckout !== undefined ? { checkoutStart: invocationCheckout } : {}) },
    attemptId: facts.attempt.id,
    startedAt,
    ...(checkout !== undefined ? { attemptCheckout: checkout } : {}),
  };
}
