import { randomUUID } from 'node:crypto';
import { attemptEndedEvent, attemptStartedEvent, attemptSuspendedEvent, type AttemptRef } from '../../records/index.js';
import type { FailureKind } from '../../records/schemas/node-lifecycle.js';
import { approvalRequestedEvent, type ApprovalContext } from '../../store/schemas/approval.js';
import {
  iterationCompletedEvent,
  iterationFailedEvent,
  iterationStartedEvent,
  type LoopStop,
} from '../../store/schemas/loop-events.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { VariableValues } from '../../workflow/substitution/variables.js';
import { cancelledFailure, stopRequestOf } from '../../worker/cancel-reason.js';
import type { SubstituteText } from '../run/node-context.js';
import { afterStartRecorded } from '../run/started-attempt.js';
import type { AttemptOutcome, NodeAttempt, NodeHandlerSet } from '../run/node-handler.js';
import { budgetPauseReason, type BudgetReached } from '../run/budget.js';
import type { LoopControl } from './loop-control.js';
import { nodeAttemptRef } from './attempt-records.js';
import { LoopHistory, type RecordedBodyRow } from './loop-history.js';
import { hasSignal, stripPromiseTags } from './loop-signal.js';

/** How one iteration's body ended. */
export type IterationOutcome =
  | { status: 'completed'; output: string }
  | { status: 'failed'; error: string; failureKind: string }
  | { status: 'cancelled' }
  | { status: 'not_started' };

/** What a loop repeats: one body node (`loop`), or a sub-DAG (`loop_group`). */
export interface IterationBody {
  /**
   * Runs iteration `iteration` (1-based), skipping what `history` shows it already completed in
   * that iteration. `variables` are `$LOOP_PREV_OUTPUT` and `$LOOP_USER_INPUT`.
   */
  run(attempt: NodeAttempt, iteration: number, variables: VariableValues, history: LoopHistory): Promise<IterationOutcome>;
  /** The output iteration `iteration` produced, read back from its records (a loop continued after a take-over or a pause). */
  recordedOutput(attempt: NodeAttempt, iteration: number, history: LoopHistory): Promise<string>;
}

export interface LoopDriverDeps {
  store: Store;
  run: Pick<Run, 'id' | 'conversation_id'>;
  substituteText: SubstituteText;
  /** The run's handler set: the `until_bash` check runs through its kind's handler (exec). */
  handlers: () => NodeHandlerSet;
}

/**
 * The iteration control `loop` and `loop_group` nodes share. The node's own attempt (at its
 * path, kind `loop` / `loop_group`) spans all its iterations: `node_started`, then per iteration
 * `loop_iteration_started` and the body's own records (each iteration a new invocation, its
 * `loopPath` naming the loop and the iteration), then `loop_iteration_completed` with how the
 * completion checks decided, and at the end `node_completed` with the last iteration's output
 * (`loopIterations`, `maxIterations` diagnostics) or `node_failed` (`max_iterations` when no check
 * ever said done). An interactive loop records `node_suspended` (point `interactive_loop`) after
 * an unfinished iteration and answers `suspended`; the approve job records the answer and the
 * same attempt is continued.
 *
 * Everything the loop decides is read back from the run's events when an attempt begins, so an
 * attempt continued after an answer, a take-over or a restart goes on from the last recorded
 * iteration.
 */
export class LoopDriver {
  constructor(private readonly deps: LoopDriverDeps) {}

  async runAttempt(attempt: NodeAttempt, control: LoopControl, body: IterationBody): Promise<AttemptOutcome> {
    const { path, identity } = attempt;
    const history = new LoopHistory(await this.deps.store.listRunEvents(this.deps.run.id), path, identity.invocation.id);
    const startedAt = (attempt.continued ? history.attemptStartedAt(identity.attempt.id) : undefined) ?? new Date().toISOString();
    const ref = nodeAttemptRef(this.deps.run, attempt, startedAt);
    if (!attempt.continued) await this.deps.store.appendEvents([attemptStartedEvent(ref)]);
    return afterStartRecorded(async () => {
      const end = new LoopEnd(this.deps.store, ref, control.maxIterations);

      let iteration = history.lastCompleted;
      let previous = iteration > 0 ? await body.recordedOutput(attempt, iteration, history) : '';
      let input: string | undefined;
      if (iteration > 0) {
        const verdict = history.verdict(iteration)!;
        if (verdict.stop) return end.completed(previous, iteration);
        if (control.interactive) {
          const answer = history.answer(iteration);
          if (!answer) return this.pause(attempt, control, ref, iteration, history.suspendedAfter(iteration));
          // A bare approve after an iteration that gave the signal ends the loop.
          if (answer.input === '' && verdict.signal) return end.completed(previous, iteration);
          input = answer.input;
        }
        if (iteration >= control.maxIterations) return end.maxIterations(iteration);
      }

      let ranOne = false;
      for (;;) {
        if (attempt.signal.aborted) return end.stopped(stopReason(attempt.signal));
        const reached = ranOne ? await attempt.budget?.() : undefined;
        if (reached) return end.overBudget(reached, budgetPauseReason(reached, this.deps.run.id), iteration + 1);
        ranOne = true;
        iteration += 1;
        const facts = { invocationId: identity.invocation.id, iteration, maxIterations: control.maxIterations };
        if (!history.started(iteration)) await this.deps.store.appendEvents([iterationStartedEvent(this.deps.run, path, facts)]);
        const began = Date.now();
        const variables: VariableValues = { LOOP_PREV_OUTPUT: previous, LOOP_USER_INPUT: input ?? '' };
        input = undefined;
        const outcome = await body.run(attempt, iteration, variables, history);
        if (outcome.status === 'cancelled' || outcome.status === 'not_started') return end.stopped(stopReason(attempt.signal));
        if (outcome.status === 'failed') {
          await this.deps.store.appendEvents([
            iterationFailedEvent(this.deps.run, path, { ...facts, durationMs: Date.now() - began, error: outcome.error }),
          ]);
          return end.failed(`Iteration ${iteration} failed: ${outcome.error}`, outcome.failureKind as FailureKind, iteration);
        }
        const output = stripPromiseTags(outcome.output);
        const signal =
          (control.until !== undefined && hasSignal(outcome.output, control.until)) ||
          (control.untilField !== undefined && fieldIsTrue(outcome.output, control.untilField));
        // An interactive loop asks before it ends on a signal only after its first iteration (the
        // agent said done before a person said anything); an iteration that answers a person's
        // input and signals ends the loop, as in the upstream. `signal_completes` never asks.
        let stop: LoopStop = signal && (!control.interactive || control.signalCompletes || iteration > 1) ? 'signal' : null;
        if (!signal && control.untilBash) {
          const check = await this.check(attempt, control, iteration, history.bodyRows(iteration).get(`${path}/${control.untilBash.id}`));
          if (check === 'stopped') return end.stopped(stopReason(attempt.signal));
          if (typeof check === 'object') return end.failed(check.error, check.failureKind as FailureKind, iteration);
          if (check === 'done') stop = 'until_bash';
        }
        await this.deps.store.appendEvents([
          iterationCompletedEvent(this.deps.run, path, { ...facts, durationMs: Date.now() - began, stop, signal }),
        ]);
        previous = output;
        if (stop) return end.completed(output, iteration);
        if (control.interactive && (iteration < control.maxIterations || signal)) {
          return this.pause(attempt, control, ref, iteration, false);
        }
        if (iteration >= control.maxIterations) return end.maxIterations(iteration);
      }
    });
  }

  /**
   * The `until_bash` check after an iteration: `done` (exit 0), `not_done` (any other exit),
   * `stopped` (cancel or shutdown), or a failure that ends the loop (it could not run: a bad
   * reference, a timeout). A check the iteration already passed is not run again.
   */
  private async check(
    attempt: NodeAttempt,
    control: LoopControl,
    iteration: number,
    recorded: RecordedBodyRow | undefined,
  ): Promise<'done' | 'not_done' | 'stopped' | { error: string; failureKind: string }> {
    if (recorded?.status === 'completed') return 'done';
    const node = control.untilBash!;
    const now = new Date().toISOString();
    const outcome = await this.deps.handlers().handlerFor(node).runAttempt({
      node,
      path: `${attempt.path}/${node.id}`,
      identity: { invocation: { id: randomUUID(), startedAt: now }, attempt: { id: randomUUID(), number: 1 } },
      signal: attempt.signal,
      loopPath: [...(attempt.loopPath ?? []), { groupId: attempt.path, iteration }],
      diagnostics: { iteration, maxIterations: control.maxIterations },
      ...(attempt.scope ? { scope: attempt.scope } : {}),
    });
    switch (outcome.status) {
      case 'completed':
        return 'done';
      case 'failed':
        return outcome.failureKind === 'exec_failed'
          ? 'not_done'
          : { error: `Node '${attempt.node.id}': until_bash could not run: ${outcome.error}`, failureKind: outcome.failureKind };
      case 'cancelled':
      case 'not_started':
        return 'stopped';
      default:
        return { error: `Node '${attempt.node.id}': until_bash ended unexpectedly (${outcome.status})`, failureKind: 'fatal' };
    }
  }

  /** An interactive loop after an unfinished iteration: records the pause (once) and answers `suspended`. */
  private async pause(attempt: NodeAttempt, control: LoopControl, ref: AttemptRef, iteration: number, recorded: boolean): Promise<AttemptOutcome> {
    const text = this.deps.substituteText(attempt.node, control.gateMessage ?? '');
    const approval: ApprovalContext = {
      type: 'interactive_loop',
      nodeId: attempt.path,
      message: text.ok ? text.text : (control.gateMessage ?? ''),
      iteration,
    };
    if (!recorded) {
      await this.deps.store.appendEvents([
        attemptSuspendedEvent(ref, 'interactive_loop', { diagnostics: { iteration, maxIterations: control.maxIterations } }),
        approvalRequestedEvent(this.deps.run, approval),
      ]);
    }
    return { status: 'suspended', approval };
  }
}

/** The loop attempt's terminal record, one way per ending. */
class LoopEnd {
  constructor(
    private readonly store: Store,
    private readonly ref: AttemptRef,
    private readonly limit: number,
  ) {}

  private durationMs(): number {
    return Math.max(0, Date.now() - Date.parse(this.ref.startedAt));
  }

  async completed(output: string, iterations: number): Promise<AttemptOutcome> {
    const diagnostics = { loopIterations: iterations, maxIterations: this.limit };
    await this.store.appendEvents([attemptEndedEvent(this.ref, { status: 'completed', output: { text: output }, diagnostics }, this.durationMs())]);
    return { status: 'completed', output };
  }

  maxIterations(iterations: number): Promise<AttemptOutcome> {
    const error = `Node '${this.ref.node.id}': reached max_iterations (${this.limit}) without completing`;
    return this.failed(error, 'max_iterations', iterations);
  }

  async failed(error: string, failureKind: FailureKind, iterations: number): Promise<AttemptOutcome> {
    const diagnostics = { loopIterations: iterations, maxIterations: this.limit };
    await this.store.appendEvents([
      attemptEndedEvent(this.ref, { status: 'failed', error, failureKind, retryable: false, diagnostics }, this.durationMs()),
    ]);
    return { status: 'failed', error, failureKind };
  }

  /**
   * The run's USD budget was reached before iteration `next`: the attempt ends interrupted (not
   * the node's outcome) and the run pauses; resumed, the loop goes on from that iteration.
   */
  async overBudget(reached: BudgetReached, reason: string, next: number): Promise<AttemptOutcome> {
    const error = `Node '${this.ref.node.id}': paused before iteration ${next}: ${reason}. Resume the run to go on (with budgetUsd to raise the budget)`;
    await this.store.appendEvents([
      attemptEndedEvent(this.ref, { status: 'failed', error, failureKind: 'transient', interrupted: true }, this.durationMs()),
    ]);
    return { status: 'over_budget', reached };
  }

  /** Stopped between or during iterations by a cancel (final) or a shutdown (continued later). */
  async stopped(abortReason: unknown): Promise<AttemptOutcome> {
    const failure = cancelledFailure(stopRequestOf(abortReason));
    await this.store.appendEvents([
      attemptEndedEvent(this.ref, { status: 'failed', error: failure.error, failureKind: failure.failureKind, retryable: failure.retryable, ...(failure.interrupted ? { interrupted: true } : {}) }, this.durationMs()),
    ]);
    return { status: 'cancelled' };
  }
}

/** Why the loop stops early: the abort's reason, or a shutdown when its body was dropped before it ran. */
function stopReason(signal: AbortSignal): unknown {
  return signal.aborted ? signal.reason : 'shutdown';
}

/** `until_field`: the iteration's output is a JSON object whose field is `true`. */
function fieldIsTrue(output: string, field: string): boolean {
  try {
    const value: unknown = JSON.parse(output);
    return typeof value === 'object' && value !== null && (value as Record<string, unknown>)[field] === true;
  } catch {
    return false;
  }
}
