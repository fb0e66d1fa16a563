import { clockNow } from '../../../shared/clock.js';
import { attemptEndedEvent, attemptStartedEvent, attemptSuspendedEvent } from '../../../records/index.js';
import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import type { SubstituteText } from '../../run/node-context.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import type { WaitAction } from './action.js';
import { nodeAttemptRef, recordRefusedAttempt } from '../attempt-records.js';

/** Flat key on a wait's `node_suspended` row: when it wakes (ISO-8601). */
export const WAKE_AT_KEY = 'wake_at';

/**
 * `wait:` nodes: a durable timer. The moment it wakes is fixed by the invocation (its start plus
 * `duration_ms`, or `until`), so a run taken over or restarted wakes at the same moment. Reaching
 * one records `node_started` and `node_suspended` (point `wait`, with `wake_at`) and answers
 * `waiting`; the scheduler holds no slot meanwhile and continues the same attempt when the
 * moment comes, which records `node_completed` with an empty output.
 */
export class WaitNodeHandler implements NodeHandler<WaitAction> {
  constructor(private readonly deps: { store: Store; run: Pick<Run, 'id' | 'conversation_id'>; substituteText: SubstituteText }) {}

  async runAttempt(attempt: NodeAttempt<WaitAction>): Promise<AttemptOutcome> {
    const action = attempt.node.action;
    const wake = this.wakeAt(attempt, action);
    if (typeof wake === 'string') return recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error: wake, failureKind: 'config' });
    const startedAt = attempt.continued ? attempt.identity.invocation.startedAt : new Date(clockNow()).toISOString();
    const ref = nodeAttemptRef(this.deps.run, attempt, startedAt);
    const now = clockNow();
    if (now < wake) {
      if (!attempt.continued) {
        await this.deps.store.appendEvents([
          attemptStartedEvent(ref),
          attemptSuspendedEvent(ref, 'wait', {
            extra: { [WAKE_AT_KEY]: new Date(wake).toISOString(), ...(action.message !== undefined ? { message: action.message } : {}) },
          }),
        ]);
      }
      return { status: 'waiting', wakeAt: wake };
    }
    const durationMs = Math.max(0, now - Date.parse(startedAt));
    await this.deps.store.appendEvents([
      ...(attempt.continued ? [] : [attemptStartedEvent(ref)]),
      attemptEndedEvent(ref, { status: 'completed', output: { text: '' } }, durationMs),
    ]);
    return { status: 'completed', output: '' };
  }

  /** Epoch ms the wait ends, or why it cannot be known. A `duration_ms` counts from the invocation's first start. */
  private wakeAt(attempt: NodeAttempt, action: WaitAction): number | string {
    if (action.durationMs !== undefined) return Date.parse(attempt.identity.invocation.startedAt) + action.durationMs;
    const until = this.deps.substituteText(attempt.node, action.until ?? '');
    if (!until.ok) return until.error;
    const moment = Date.parse(until.text.trim());
    return Number.isNaN(moment)
      ? `Node '${attempt.node.id}': 'wait.until' must be an ISO-8601 timestamp (e.g. 2030-01-01T09:00:00Z), got '${until.text.trim()}'`
      : moment;
  }
}
