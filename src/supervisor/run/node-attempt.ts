import { randomUUID } from 'node:crypto';
import { clockNow } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { isWorthWaitingFor } from '../../shared/store-faults.js';
import type { ApprovalContext } from '../../store/schemas/approval.js';
import type { AttemptOutcome, NodeHandlerSet } from './node-handler.js';
import type { NodeEntry, NodeTable } from './node-table.js';
import type { NodeTimers } from './node-timers.js';
import { fingerprintOfText } from './output-fingerprint.js';
import type { ReadyQueue } from './ready-queue.js';
import { decideRetry } from './retry-policy.js';
import { StartedAttemptDeferred } from './started-attempt.js';
import type { BudgetReached, RunBudget } from './budget.js';

/** One node attempt from the scheduler's side: run through the node's handler, then its outcome applied to the node. */

export interface AttemptRun {
  handlers: NodeHandlerSet;
  /** Aborted to stop running attempts (a cancel, a shutdown). */
  signal: AbortSignal;
  /** The run's budget holds this node back now (it asks a provider, and the budget is spent); it does not start. */
  heldBack(entry: NodeEntry): boolean;
  /** For a node that asks a provider: reads the run's budgets again and answers the one reached (see NodeAttempt.budget). */
  budgetCheck?(entry: NodeEntry): (() => Promise<BudgetReached | undefined>) | undefined;
  log: Logger;
}

/**
 * What a run's attempts run with: a node that asks a provider is held back while the run's budget
 * (or one above it) is spent, and checks it again before its call.
 */
export function attemptRunOf(deps: {
  handlers: NodeHandlerSet;
  signal: AbortSignal;
  log: Logger;
  providerOf: ((node: NodeEntry['plan']) => string | undefined) | undefined;
  budget: RunBudget;
}): AttemptRun {
  const { providerOf, budget } = deps;
  return {
    handlers: deps.handlers,
    signal: deps.signal,
    log: deps.log,
    budgetCheck: (node) => (providerOf?.(node.plan) === undefined ? undefined : () => budget.reachedNow()),
    heldBack: (node) => {
      const over = providerOf?.(node.plan) === undefined ? undefined : budget.over;
      if (!over) return false;
      budget.reached = over;
      return true;
    },
  };
}

/**
 * One attempt through the node's handler: a new attempt, or the held one continued (a `wait`, a
 * child run). A handler that throws because the store could not take its record (a full disk)
 * has its attempt deferred: the held attempt stays held, a new one is not counted, unless its
 * start was recorded (StartedAttemptDeferred): then it is held, to be continued. A handler that
 * throws anything else is a bug: the attempt is a transient failure, logged, and goes through the
 * retry policy like any other.
 */
export async function runNodeAttempt(entry: NodeEntry, deps: AttemptRun): Promise<AttemptOutcome> {
  const held = entry.heldAttempt;
  delete entry.heldAttempt;
  if (!held) entry.attempts += 1;
  // Queued for a global slot before the budget was reached: it does not start now.
  if (deps.heldBack(entry)) return { status: 'not_started' };
  entry.invocation ??= { id: randomUUID(), startedAt: new Date(clockNow()).toISOString() };
  const identity = { invocation: entry.invocation, attempt: held ?? { id: randomUUID(), number: entry.attempts } };
  try {
    const handler = deps.handlers.handlerFor(entry.plan);
    const budget = deps.budgetCheck?.(entry);
    const outcome = await handler.runAttempt({
      node: entry.plan, path: entry.path, identity, signal: deps.signal, ...(held ? { continued: true } : {}), ...(budget ? { budget } : {}),
    });
    if (outcome.status === 'waiting') entry.heldAttempt = identity.attempt;
    // A node suspended on something outside the run (a child run) may be continued in place.
    if (outcome.status === 'suspended' && outcome.approval.type === 'child_workflow') entry.heldAttempt = identity.attempt;
    return outcome;
  } catch (err) {
    if (err instanceof StartedAttemptDeferred) {
      // Its start is recorded: the same attempt is continued later, never a second one beside it.
      entry.heldAttempt = identity.attempt;
      return { status: 'deferred', error: err.fault };
    }
    if (isWorthWaitingFor(err)) {
      if (held) entry.heldAttempt = held;
      return { status: 'deferred', error: err };
    }
    deps.log.error({ err, nodeId: entry.plan.id }, 'node.attempt_crashed');
    return { status: 'failed', error: `the attempt crashed: ${(err as Error).message}`, failureKind: 'transient' };
  }
}

/** The parts of a run's scheduling state an attempt's outcome moves its node through. */
export interface OutcomeTarget {
  table: NodeTable;
  /** Where a settled node's dependants go to be decided. */
  candidates: ReadyQueue<NodeEntry>;
  /** Nodes at a gate, in the order they reached it. */
  suspended: Map<NodeEntry, ApprovalContext>;
  timers: NodeTimers;
  /** The run is stopping: nothing waits or retries here any more (it stays pending for whoever drives it next). */
  stopping(): boolean;
  /** A `cancel:` node was reached: the run ends cancelled with its reason. */
  halt(nodeId: string, reason: string): void;
  /** A node's child run paused on a budget: nothing new starts, and the run pauses on it once idle. */
  overBudget(reached: BudgetReached): void;
  /** The store refused the attempt's record: the node waits off the queue and runs again later. */
  defer(entry: NodeEntry, err: unknown): void;
}

/**
 * What one attempt's outcome does to its node: it settles (and its dependants become
 * candidates), waits at a gate, waits out a `wait` or a retry delay off the queue, or goes back
 * to pending (not started, interrupted, or the run is stopping).
 */
export function applyOutcome(entry: NodeEntry, outcome: AttemptOutcome, target: OutcomeTarget): void {
  switch (outcome.status) {
    case 'completed': {
      // A node that had a prior success and produced the same output again leaves its cached
      // dependants valid.
      const changed = entry.priorFingerprint === undefined || fingerprintOfText(outcome.output) !== entry.priorFingerprint;
      target.candidates.push(...target.table.settle(entry, 'completed', { output: outcome.output, changed }));
      return;
    }
    case 'halted':
      target.candidates.push(...target.table.settle(entry, 'completed', { output: outcome.output }));
      target.halt(entry.plan.id, outcome.reason);
      return;
    case 'suspended':
      entry.status = 'suspended';
      target.suspended.set(entry, outcome.approval);
      return;
    case 'waiting':
      if (target.stopping()) {
        entry.status = 'pending';
        return;
      }
      target.timers.waitUntil(entry, outcome.wakeAt);
      return;
    case 'not_started':
      entry.attempts -= 1;
      entry.status = 'pending';
      return;
    case 'over_budget':
      // Its attempt ended (recorded); the node runs again when the run is resumed.
      entry.status = 'pending';
      target.overBudget(outcome.reached);
      return;
    case 'cancelled':
      // Interrupted attempts run again as a new attempt when the run is next driven.
      entry.status = 'pending';
      return;
    case 'deferred':
      // A new attempt that could not be recorded did not happen; a held one stays held.
      if (entry.heldAttempt === undefined) entry.attempts -= 1;
      if (target.stopping()) entry.status = 'pending';
      else target.defer(entry, outcome.error);
      return;
    case 'failed': {
      const decision = decideRetry(entry.plan.retry, outcome, entry.attempts);
      if (!decision.retry) {
        const resumeAt = outcome.resumeAt !== undefined ? { resumeAt: outcome.resumeAt } : {};
        target.candidates.push(...target.table.settle(entry, 'failed', { error: outcome.error, ...resumeAt }));
      } else if (target.stopping()) {
        entry.status = 'pending';
      } else {
        target.timers.retryAfter(entry, decision.delayMs);
      }
    }
  }
}
