import { attemptEndedEvent, attemptSuspendedEvent, type AttemptRef } from '../../../records/index.js';
import type { Run } from '../../../store/schemas/run.js';
import { scanReferences } from '../../../workflow/substitution/references.js';
import type { Store } from '../../../store/store.js';
import type { ChildEnd, ChildRequest, ChildRuns } from '../../children/child-runs.js';
import type { SubstituteText } from '../../run/node-context.js';
import type { AttemptOutcome, NodeAttempt } from '../../run/node-handler.js';
import { budgetPauseReason, type BudgetReached } from '../../run/budget.js';
import type { ChildRunAction } from './action.js';
import type { InRunFanOut } from './fan-out-in-run.js';
import { cancelledFailure, stopRequestOf } from '../../../worker/cancel-reason.js';

/** What the handlers of `workflow:` nodes share. */
export interface ChildNodeDeps {
  store: Store;
  run: Pick<Run, 'id' | 'conversation_id' | 'inputs'>;
  substituteText: SubstituteText;
  children: ChildRuns;
  /** Runs a fan-out's items as instances inside the run (`fan_out.mode: in_run`). */
  inRun: InRunFanOut;
}

/** The child's message and inputs as the node asks them (references filled in), or why not. */
export function childRequestOf(
  deps: ChildNodeDeps,
  attempt: NodeAttempt,
  action: ChildRunAction,
): { ok: true; request: Omit<ChildRequest, 'index'> } | { ok: false; error: string } {
  const { node } = attempt;
  let message = '';
  if (action.input !== undefined) {
    const text = deps.substituteText(node, action.input);
    if (!text.ok) return text;
    message = text.text;
  }
  // A literal value keeps its YAML type, and a value that is one `$INPUTS.<name>` passes this run's
  // value as it is (a number stays a number); a value with references in text is text, which the
  // child's declared type converts.
  const typed: Record<string, unknown> = {};
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(action.with ?? {})) {
    if (typeof value !== 'string') {
      typed[name] = value;
      continue;
    }
    const whole = wholeInputReference(value);
    if (whole !== undefined && Object.hasOwn(deps.run.inputs, whole)) {
      typed[name] = deps.run.inputs[whole];
      continue;
    }
    const filled = deps.substituteText(node, value);
    if (!filled.ok) return filled;
    text[name] = filled.text;
  }
  const inputs = { text, typed };
  return { ok: true, request: { nodePath: attempt.path, workflow: action.workflow, message, inputs, isolation: action.isolation } };
}

/** The input name when `value` is exactly one `$INPUTS.<name>` reference. */
function wholeInputReference(value: string): string | undefined {
  const refs = scanReferences(value);
  const ref = refs.length === 1 ? refs[0]! : undefined;
  return ref?.kind === 'input' && ref.start === 0 && ref.end === value.length ? ref.name : undefined;
}

/**
 * A child the node asks to be resumed before it waits for it (same child run id): one that ended
 * failed in an earlier pass of the parent (before this invocation began), so a resumed parent
 * does not fail the node again; or one paused on a budget, so a parent resumed with more budget
 * (the child reads it) goes on where the child stopped.
 */
function childToResume(child: Run, attempt: NodeAttempt): boolean {
  const failedBefore = child.status === 'failed' && child.completed_at !== null && child.completed_at < attempt.identity.invocation.startedAt;
  return failedBefore || (child.status === 'paused' && child.metadata.budget_pause != null);
}

/**
 * Waits for the child to pause or end, resuming it first when it is one to resume
 * (childToResume); the end it had then does not count. Undefined when the attempt is stopped.
 */
export async function settleChild(deps: ChildNodeDeps, child: Run, attempt: NodeAttempt): Promise<ChildEnd | undefined> {
  const resume = childToResume(child, attempt);
  if (resume) await deps.children.resume(child);
  return deps.children.settled(child.id, attempt.signal, resume ? child : undefined);
}

/**
 * A child paused on a budget: the node's attempt ends interrupted (its error saying whose budget
 * and what to do), and the parent pauses on the same budget once nothing else runs.
 */
export async function endOverBudget(
  deps: ChildNodeDeps,
  attempt: NodeAttempt,
  ref: AttemptRef,
  reached: BudgetReached,
  what: string,
): Promise<AttemptOutcome> {
  const durationMs = Math.max(0, Date.now() - Date.parse(ref.startedAt));
  const error = `Node '${attempt.node.id}': ${what} paused: ${budgetPauseReason(reached, deps.run.id)}. Resume the run to go on (with budgetUsd to raise the budget)`;
  // Recorded as an interrupted attempt (as a shutdown's): not the node's outcome, it runs again
  // when the run is next driven (resumed, or taken over before it paused).
  await deps.store.appendEvents([
    attemptEndedEvent(ref, { status: 'failed', error, failureKind: 'transient', interrupted: true }, durationMs),
  ]);
  return { status: 'over_budget', reached };
}

/**
 * The node's attempt was stopped while it waited: a cancel stops its children too (and is
 * final); a shutdown leaves them running (they are runs of their own) and the node is run again,
 * finding them, by whoever drives the parent next.
 */
export async function endStoppedAttempt(
  deps: ChildNodeDeps,
  attempt: NodeAttempt,
  ref: AttemptRef,
  childRunIds: readonly string[],
): Promise<AttemptOutcome> {
  const shutdown = typeof attempt.signal.reason === 'object' && attempt.signal.reason?.reason === 'shutdown';
  const durationMs = Math.max(0, Date.now() - Date.parse(ref.startedAt));
  if (shutdown) {
    await deps.store.appendEvents([
      attemptEndedEvent(ref, { status: 'failed', error: 'Interrupted by a shutdown', failureKind: 'transient', interrupted: true }, durationMs),
    ]);
    return { status: 'cancelled' };
  }
  await Promise.all(childRunIds.map((id) => deps.children.cancel(id)));
  await deps.store.appendEvents([
    attemptEndedEvent(ref, { status: 'failed', error: cancelledFailure(stopRequestOf(attempt.signal.reason)).error, failureKind: 'cancelled', retryable: false }, durationMs),
  ]);
  return { status: 'cancelled' };
}

/** The node waits for a child paused at its own gate: the parent pauses as blocked on it. */
export async function suspendOnChild(deps: ChildNodeDeps, attempt: NodeAttempt, ref: AttemptRef, childRunId: string, message: string): Promise<AttemptOutcome> {
  await deps.store.appendEvents([attemptSuspendedEvent(ref, 'child_workflow', { diagnostics: { blockedOnChildRunId: childRunId } })]);
  return {
    status: 'suspended',
    approval: { type: 'child_workflow', nodeId: attempt.path, message: `Waiting on child run ${childRunId}: ${message}`, childRunId },
  };
}
