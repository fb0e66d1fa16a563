import { randomUUID } from 'node:crypto';
import {
  buildExecutionRecord,
  conditionParseErrorSkip,
  conditionSkip,
  failedState,
  markInterrupted,
  nodeEventOf,
  notApplicableSpend,
  triggerRuleSkip,
} from '../../records/index.js';
import type { AttemptResult } from '../../worker/attempt-protocol.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Lifecycle, FailureKind } from '../../records/schemas/node-lifecycle.js';
import type { Run } from '../../store/schemas/run.js';
import type { PlannedNode } from './run-plan.js';
import type { SkipDecision } from './skip-decision.js';

export interface AttemptIdentity {
  invocation: { id: string; startedAt: string };
  attempt: { id: string; number: number };
}

/** Builds the node events the supervisor itself writes; the worker writes the rest. */
export class NodeEventFactory {
  constructor(private readonly run: Pick<Run, 'id' | 'conversation_id'>) {}

  skipped(node: PlannedNode, skip: SkipDecision): NewRunEvent {
    const now = new Date().toISOString();
    return this.event(node, { id: randomUUID(), startedAt: now }, { id: randomUUID(), startedAt: now }, now, undefined, skipLifecycle(skip));
  }

  /** A node that fails before any attempt: its `when` condition could not be evaluated. */
  refused(node: PlannedNode, error: string): NewRunEvent {
    const now = new Date().toISOString();
    return this.event(node, { id: randomUUID(), startedAt: now }, { id: randomUUID(), startedAt: now }, now, 0, failedState(error, { failureKind: 'config' }));
  }

  /** The terminal record of an attempt the worker did not record (refused before it started,
   * or killed from the supervisor side). */
  attemptEnded(node: PlannedNode, identity: AttemptIdentity, result: AttemptResult): NewRunEvent {
    const error = result.error ?? (result.status === 'cancelled' ? 'Cancelled by user' : 'failed');
    const failureKind = (result.failureKind ?? (result.status === 'cancelled' ? 'cancelled' : 'unknown')) as FailureKind;
    const event = this.event(
      node,
      identity.invocation,
      { id: identity.attempt.id, startedAt: result.startedAt },
      result.startedAt,
      result.durationMs,
      failedState(error, { failureKind }),
    );
    return result.interrupted ? markInterrupted(event) : event;
  }

  /** Closes an attempt whose supervisor died while it ran (its process group already killed). */
  interrupted(
    node: PlannedNode,
    invocation: { id: string; startedAt: string },
    attempt: { id: string; startedAt: string },
    previousOwner: string | null,
  ): NewRunEvent {
    const error = `Attempt interrupted: supervisor ${previousOwner ?? '(unknown)'} stopped while it ran; the node runs again`;
    return markInterrupted(
      this.event(node, invocation, attempt, attempt.startedAt, undefined, failedState(error, { failureKind: 'transient' })),
    );
  }

  private event(
    node: PlannedNode,
    invocation: { id: string; startedAt: string },
    attempt: { id: string; startedAt: string },
    startedAt: string,
    durationMs: number | undefined,
    lifecycle: Lifecycle,
  ): NewRunEvent {
    const record = buildExecutionRecord({
      runId: this.run.id,
      path: node.id,
      node: node.descriptor,
      invocation: { ...invocation, loopPath: [] },
      attempt,
      timing: durationMs === undefined ? { startedAt } : { startedAt, durationMs },
      spend: notApplicableSpend(),
      lifecycle,
    });
    return { ...nodeEventOf(record), conversation_id: this.run.conversation_id };
  }
}

function skipLifecycle(skip: SkipDecision): Lifecycle {
  switch (skip.reason) {
    case 'trigger_rule':
      return triggerRuleSkip(skip.cause.kind === 'upstream_failed' ? 'failed' : 'skipped', skip.cause.origin);
    case 'when_condition':
      return conditionSkip(skip.cause.expr);
    case 'when_condition_parse_error':
      return conditionParseErrorSkip(skip.cause.expr);
  }
}
