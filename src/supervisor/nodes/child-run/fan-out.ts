import { attemptEndedEvent, attemptStartedEvent } from '../../../records/index.js';
import { CairnError } from '../../../shared/errors.js';
import { isWorthWaitingFor } from '../../../shared/store-faults.js';
import { afterStartRecorded } from '../../run/started-attempt.js';
import type { Run } from '../../../store/schemas/run.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import type { ChildRunAction } from './action.js';
import { nodeAttemptRef, recordRefusedAttempt } from '../attempt-records.js';
import { instancesOf, itemText, resolveFanOutItems } from './fan-out-items.js';
import { rebuildRunSnapshot } from '../../../records/index.js';
import { fanOutInstancesEventOf } from '../../../records/event-data.js';
import type { WorkflowDefinition } from '../../../workflow/schema/workflow-schema.js';
import { childRequestOf, settleChild, endOverBudget, endStoppedAttempt, type ChildNodeDeps } from './child-attempt.js';
import type { SuppliedInputs } from '../../../workflow/schema/run-inputs.js';
import type { BudgetReached } from '../../run/budget.js';

/** One item's place in the join: the child's output, or what became of it. */
type ItemResult = string | { failed: true; error: string; status: string; childRunId: string };

/** What a paused fan-out child is told (and the item's error): a fan-out cannot wait for a person. */
const PAUSED_IN_FAN_OUT = 'the child paused at a gate inside a fan-out; it was cancelled (a fan-out child cannot wait for a person)';

/**
 * `workflow:` nodes with `fan_out`: one child run per item of `items` (a JSON array, from an
 * upstream output or written literally), at most `max_parallel` running at once (a sliding
 * window: the next starts as one ends). The output is a JSON array in item order: each child's
 * output, or `{failed: true, error, status, childRunId}` for an item whose child failed.
 * `all_success` fails the node when any item failed; `all_done` completes it. A child that
 * pauses at a gate is cancelled and fails the node (contract). Children are found again by
 * (parent, node, item index): a node run again after a take-over reuses every child there is,
 * and a resumed parent resumes the children that failed in its earlier pass, and only those.
 */
export class FanOutNodeHandler implements NodeHandler<ChildRunAction> {
  readonly waitsForRuns = true;

  constructor(private readonly deps: ChildNodeDeps) {}

  async runAttempt(attempt: NodeAttempt<ChildRunAction>): Promise<AttemptOutcome> {
    const action = attempt.node.action;
    const fan = action.fanOut!;
    const { store, run, children } = this.deps;
    const refuse = (error: string) => recordRefusedAttempt(store, run, attempt, { error, failureKind: 'config' });
    const items = resolveFanOutItems(this.deps.substituteText, attempt, fan.items);
    if (!items.ok) return refuse(items.error);
    // Each item is its child's $ARGUMENTS: the loader drops an `input` beside `fan_out` with a
    // warning; a definition stored before it did (a run resumed from then) is still refused here.
    if (action.input !== undefined) {
      return refuse(`Node '${attempt.node.id}': 'input' does not apply with 'fan_out' (each item is its child's $ARGUMENTS); use 'fan_out.as' to pass the item as an input, and 'with' for the rest`);
    }
    const asked = childRequestOf(this.deps, attempt, action);
    if (!asked.ok) return refuse(asked.error);
    const mode = await this.modeOf(attempt, action);
    if ('error' in mode) return refuse(mode.error);
    if (mode.mode === 'in_run') return this.deps.inRun.run(attempt, action, items.values, mode.child);
    // The items as first snapshotted (written once, before any child starts): a node run again
    // runs over the same items, and the grid lists them.
    const snapshot = rebuildRunSnapshot(await store.listRunEvents(run.id)).fanOutInstances.get(attempt.path);
    if (!snapshot) {
      const event = fanOutInstancesEventOf(run.id, attempt.path, instancesOf(items.values));
      await store.appendEvents([{ ...event, conversation_id: run.conversation_id }]);
    } else {
      items.values = snapshot.map((instance) => instance.item);
    }
    const existing = new Map<number, Run>();
    for (const child of await children.list(attempt.path)) {
      if (typeof child.metadata.child_index === 'number') existing.set(child.metadata.child_index, child);
    }
    if (existing.size < items.values.length) {
      try {
        await children.workflow(action.workflow);
      } catch (err) {
        if (!(err instanceof CairnError)) throw err;
        return refuse(`Node '${attempt.node.id}': cannot start child workflow '${action.workflow}': ${err.message}`);
      }
    }
    const ref = nodeAttemptRef(run, attempt, new Date().toISOString());
    if (!attempt.continued) await store.appendEvents([attemptStartedEvent(ref)]);
    return afterStartRecorded(async () => {
      const results: ItemResult[] = new Array<ItemResult>(items.values.length);
      const started: string[] = [];
      let paused = false;
      /** A child paused on a budget: no new item starts, and the parent pauses on it. */
      let overBudget: { reached: BudgetReached; children: number } | undefined;
      let startError: string | undefined;
      let next = 0;
      const runItem = async (index: number): Promise<boolean> => {
        const text = itemText(items.values[index]);
        let child = existing.get(index);
        if (!child) {
          try {
            child = await children.start({
              ...asked.request,
              index,
              message: text,
              // The item is handed to `as` as it is (a number, an object), not as its text.
              inputs: withItem(asked.request.inputs, fan.as, items.values[index]),
            });
          } catch (err) {
            // A full disk or a busy database is waited out (the attempt is kept), never an item's failure.
            if (!(err instanceof CairnError) || isWorthWaitingFor(err)) throw err;
            startError = `item ${index}: ${err.message}`;
            return false;
          }
        }
        started.push(child.id);
        const end = await settleChild(this.deps, child, attempt);
        if (!end) return false;
        if (end.status === 'completed') {
          results[index] = end.output;
        } else if (end.status === 'paused' && end.budget) {
          // Left paused (not cancelled): the parent's resume resumes it where it stopped.
          overBudget = { reached: overBudget?.reached ?? end.budget, children: (overBudget?.children ?? 0) + 1 };
        } else if (end.status === 'paused') {
          paused = true;
          await children.cancel(child.id);
          results[index] = { failed: true, error: PAUSED_IN_FAN_OUT, status: 'paused', childRunId: child.id };
        } else {
          results[index] = { failed: true, error: end.error, status: end.status, childRunId: child.id };
        }
        return true;
      };
      const lane = async (): Promise<void> => {
        while (next < items.values.length && !attempt.signal.aborted && startError === undefined && overBudget === undefined) {
          if (!(await runItem(next++))) return;
        }
      };
      await Promise.all(Array.from({ length: Math.min(fan.maxParallel, items.values.length) }, lane));
      if (attempt.signal.aborted) return endStoppedAttempt(this.deps, attempt, ref, started);

      const durationMs = Math.max(0, Date.now() - Date.parse(ref.startedAt));
      if (startError !== undefined) {
        const error = `Node '${attempt.node.id}': cannot start child workflow '${action.workflow}': ${startError}`;
        await store.appendEvents([attemptEndedEvent(ref, { status: 'failed', error, failureKind: 'config', retryable: false }, durationMs)]);
        return { status: 'failed', error, failureKind: 'config', retryable: false };
      }
      if (overBudget !== undefined && !paused) {
        const what = `${overBudget.children} of its ${results.length} fan-out children`;
        return endOverBudget(this.deps, attempt, ref, overBudget.reached, what);
      }
      const output = `[${results.map((r) => JSON.stringify(r)).join(',')}]`;
      const failed = results.filter((r) => typeof r !== 'string').length;
      const error = paused
        ? `Node '${attempt.node.id}': ${PAUSED_IN_FAN_OUT}`
        : failed && fan.join === 'all_success'
          ? `Node '${attempt.node.id}': ${failed} of ${results.length} fan-out items failed (join: all_success)`
          : undefined;
      if (error !== undefined) {
        await store.appendEvents([
          attemptEndedEvent(ref, { status: 'failed', error, failureKind: 'child_failed', retryable: false, output: { text: output } }, durationMs),
        ]);
        return { status: 'failed', error, failureKind: 'child_failed', retryable: false };
      }
      await store.appendEvents([attemptEndedEvent(ref, { status: 'completed', output: { text: output } }, durationMs)]);
      return { status: 'completed', output };
    });
  }

  /**
   * How the items run: as written (`fan_out.mode`), else in the run when that is cheaper and the
   * child needs nothing of its own (only bash/script nodes, no `isolation: worktree`, no `with`
   * or `as` inputs), else as child runs. An `in_run` the child cannot have is refused, naming why.
   */
  private async modeOf(
    attempt: NodeAttempt,
    action: ChildRunAction,
  ): Promise<{ mode: 'in_run'; child: WorkflowDefinition } | { mode: 'child_runs' } | { error: string }> {
    const fan = action.fanOut!;
    if (fan.mode === 'child_runs') return { mode: 'child_runs' };
    const ownNeeds = action.isolation === 'worktree' || action.with !== undefined || fan.as !== undefined;
    if (fan.mode === undefined && ownNeeds) return { mode: 'child_runs' };
    let child: WorkflowDefinition;
    try {
      child = (await this.deps.children.workflow(action.workflow)).workflow;
    } catch (err) {
      if (!(err instanceof CairnError)) throw err;
      return { error: `Node '${attempt.node.id}': cannot start child workflow '${action.workflow}': ${err.message}` };
    }
    if (this.deps.inRun.canRun(child) && !ownNeeds) return { mode: 'in_run', child };
    if (fan.mode === undefined) return { mode: 'child_runs' };
    return {
      error:
        `Node '${attempt.node.id}': 'fan_out.mode: in_run' needs a child workflow of bash and script nodes only, run with ` +
        `neither 'with', 'fan_out.as' nor 'isolation: worktree'; use 'mode: child_runs' for '${action.workflow}'`,
    };
  }
}

/** The child's inputs with the item under `fan_out.as`: as it is (typed), a null item as the text `null`. */
function withItem(inputs: SuppliedInputs, as: string | undefined, item: unknown): SuppliedInputs {
  if (as === undefined) return inputs;
  const { [as]: _replaced, ...text } = inputs.text ?? {};
  const { [as]: _replacedTyped, ...typed } = inputs.typed ?? {};
  return item === null ? { text: { ...text, [as]: itemText(item) }, typed } : { text, typed: { ...typed, [as]: item } };
}
