import { attemptEndedEvent, attemptStartedEvent } from '../../../records/index.js';
import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import type { SubstituteText } from '../../run/node-context.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import type { HaltAction } from './action.js';
import { nodeAttemptRef, recordRefusedAttempt } from '../attempt-records.js';

/**
 * `cancel:` nodes. Reaching one completes it (its output is the reason) and answers `halted`:
 * the scheduler stops the run's other nodes and records the run `cancelled` with the reason.
 */
export class HaltNodeHandler implements NodeHandler<HaltAction> {
  constructor(private readonly deps: { store: Store; run: Pick<Run, 'id' | 'conversation_id'>; substituteText: SubstituteText }) {}

  async runAttempt(attempt: NodeAttempt<HaltAction>): Promise<AttemptOutcome> {
    const action = attempt.node.action;
    const reason = this.deps.substituteText(attempt.node, action.reason);
    if (!reason.ok) return recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error: reason.error, failureKind: 'config' });
    const ref = nodeAttemptRef(this.deps.run, attempt, new Date().toISOString());
    await this.deps.store.appendEvents([
      attemptStartedEvent(ref),
      attemptEndedEvent(ref, { status: 'completed', output: { text: reason.text } }, 0),
    ]);
    return { status: 'halted', reason: reason.text, output: reason.text };
  }
}
