import { randomUUID } from 'node:crypto';
import {
  buildCacheRecord,
  buildExecutionRecord,
  cacheEventOf,
  conditionParseErrorSkip,
  conditionSkip,
  failedState,
  nodeEventOf,
  notApplicableSpend,
  triggerRuleSkip,
  type CacheDecisionInput,
  type OutputInput,
  type ReusableOutput,
} from '../../records/index.js';
import type { LoopFrame } from '../../records/schemas/execution-record.js';
import type { Lifecycle } from '../../records/schemas/node-lifecycle.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Run } from '../../store/schemas/run.js';
import type { PlannedNode } from './run-plan.js';
import type { SkipDecision } from './skip-decision.js';

/** Where a node decided without an attempt sits, when not at the top level. */
export interface NodePlace {
  path: string;
  loopPath: readonly LoopFrame[];
}

/**
 * The scheduling events the scheduler writes for a node decided without an attempt: skipped by
 * its trigger rule or `when`, or failed because its `when` could not be evaluated. Attempt
 * events are written by whoever owns the attempt, through records/attempt-events.ts.
 */
export class NodeEventFactory {
  constructor(private readonly run: Pick<Run, 'id' | 'conversation_id'>) {}

  /** `at`: a loop_group body node's path and loopPath (a top-level node: its id, no loops). */
  skipped(node: PlannedNode, skip: SkipDecision, at?: NodePlace): NewRunEvent {
    return this.decided(node, undefined, skipLifecycle(skip), at);
  }

  /** A node that fails before any attempt: its `when` condition could not be evaluated. */
  refused(node: PlannedNode, error: string, at?: NodePlace): NewRunEvent {
    return this.decided(node, 0, failedState(error, { failureKind: 'config' }), at);
  }

  /** A resumed run reuses the node's prior success (`node_skipped_prior_success`). */
  replayed(node: PlannedNode, prior: ReusableOutput): NewRunEvent {
    return this.cache(node, { action: 'replayed', output: outputOf(prior) });
  }

  /** An `always_run` node discards its prior success and runs again (`node_always_run_reset`). */
  reset(node: PlannedNode, prior: ReusableOutput): NewRunEvent {
    return this.cache(node, { action: 'reset', prior: outputOf(prior) });
  }

  /** A dependency ran again with another output: the prior success is stale (`node_prior_cache_invalidated`). */
  invalidated(node: PlannedNode, prior: ReusableOutput, invalidatingDeps: string[]): NewRunEvent {
    return this.cache(node, { action: 'invalidated', prior: outputOf(prior), invalidatingDeps });
  }

  private cache(node: PlannedNode, cache: CacheDecisionInput): NewRunEvent {
    const record = buildCacheRecord({ runId: this.run.id, path: node.id, node: node.descriptor, cache });
    return { ...cacheEventOf(record), conversation_id: this.run.conversation_id };
  }

  private decided(node: PlannedNode, durationMs: number | undefined, lifecycle: Lifecycle, at?: NodePlace): NewRunEvent {
    const now = new Date().toISOString();
    const record = buildExecutionRecord({
      runId: this.run.id,
      path: at?.path ?? node.id,
      node: node.descriptor,
      invocation: { id: randomUUID(), startedAt: now, loopPath: [...(at?.loopPath ?? [])] },
      attempt: { id: randomUUID(), startedAt: now },
      timing: durationMs === undefined ? { startedAt: now } : { startedAt: now, durationMs },
      spend: notApplicableSpend(),
      lifecycle,
    });
    return { ...nodeEventOf(record), conversation_id: this.run.conversation_id };
  }
}

/** A prior success as a record's output: the stored text with its truncation and spill facts kept. */
function outputOf(prior: ReusableOutput): OutputInput {
  return {
    text: prior.text,
    ...(prior.structured !== undefined ? { structured: prior.structured } : {}),
    ...(prior.declaredOutputPaths !== undefined ? { declaredOutputPaths: prior.declaredOutputPaths } : {}),
    ...(prior.persisted !== undefined ? { persisted: prior.persisted } : {}),
  };
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
