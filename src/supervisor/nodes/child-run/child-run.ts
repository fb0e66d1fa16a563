import { attemptEndedEvent, attemptStartedEvent } from '../../../records/index.js';
import { CairnError } from '../../../shared/errors.js';
import { isWorthWaitingFor } from '../../../shared/store-faults.js';
import { afterStartRecorded } from '../../run/started-attempt.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import type { ChildRunAction } from './action.js';
import { nodeAttemptRef, recordRefusedAttempt } from '../attempt-records.js';
import { childRequestOf, settleChild, endOverBudget, endStoppedAttempt, suspendOnChild, type ChildNodeDeps } from './child-attempt.js';
import { FanOutNodeHandler } from './fan-out.js';

/**
 * `workflow:` nodes. One child run (index 0) whose output becomes the node's: a child paused at
 * its gate suspends the node (the parent pauses as blocked on it, point `child_workflow`) and the
 * same attempt goes on when the child ends; a child paused on a budget pauses the parent on it
 * (resumed, the node resumes the child); a failed or cancelled child fails the node. With
 * `fan_out` the node is a FanOutNodeHandler's. The attempt holds no global slot while it waits.
 */
export class ChildRunNodeHandler implements NodeHandler<ChildRunAction> {
  readonly waitsForRuns = true;
  private readonly fanOut: FanOutNodeHandler;

  constructor(private readonly deps: ChildNodeDeps) {
    this.fanOut = new FanOutNodeHandler(deps);
  }

  async runAttempt(attempt: NodeAttempt<ChildRunAction>): Promise<AttemptOutcome> {
    const action = attempt.node.action;
    if (action.fanOut) return this.fanOut.runAttempt(attempt);
    const { store, run, children } = this.deps;
    const asked = childRequestOf(this.deps, attempt, action);
    if (!asked.ok) return recordRefusedAttempt(store, run, attempt, { error: asked.error, failureKind: 'config' });
    let child;
    try {
      child = await children.start({ ...asked.request, index: 0 });
    } catch (err) {
      const error = `Node '${attempt.node.id}': cannot start child workflow '${action.workflow}': ${(err as Error).message}`;
      // A full disk or a busy database is waited out (the attempt is put off), never a config failure.
      if (!(err instanceof CairnError) || isWorthWaitingFor(err)) throw err;
      return recordRefusedAttempt(store, run, attempt, { error, failureKind: 'config' });
    }
    const ref = nodeAttemptRef(run, attempt, new Date().toISOString());
    if (!attempt.continued) await store.appendEvents([attemptStartedEvent(ref)]);
    return afterStartRecorded(async () => {
      const end = await settleChild(this.deps, child, attempt);
      if (!end) return endStoppedAttempt(this.deps, attempt, ref, [child.id]);
      const durationMs = Math.max(0, Date.now() - Date.parse(ref.startedAt));
      const diagnostics = { childRunId: child.id };
      switch (end.status) {
        case 'paused':
          if (end.budget) return endOverBudget(this.deps, attempt, ref, end.budget, `its child run ${child.id}`);
          return suspendOnChild(this.deps, attempt, ref, child.id, end.message);
        case 'completed':
          await store.appendEvents([attemptEndedEvent(ref, { status: 'completed', output: { text: end.output }, diagnostics }, durationMs)]);
          return { status: 'completed', output: end.output };
        default: {
          const error = `Child workflow '${action.workflow}' (run ${child.id}) ${end.status}: ${end.error}`;
          await store.appendEvents([
            attemptEndedEvent(ref, { status: 'failed', error, failureKind: 'child_failed', retryable: false, diagnostics }, durationMs),
          ]);
          return { status: 'failed', error, failureKind: 'child_failed', retryable: false };
        }
      }
    });
  }
}
