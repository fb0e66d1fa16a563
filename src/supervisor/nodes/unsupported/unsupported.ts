import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import { recordRefusedAttempt } from '../attempt-records.js';
import type { UnsupportedAction } from './action.js';

/** Node kinds this version cannot execute: each attempt fails at once with a configuration error. */
export class UnsupportedNodeHandler implements NodeHandler<UnsupportedAction> {
  constructor(private readonly deps: { store: Store; run: Pick<Run, 'id' | 'conversation_id'> }) {}

  runAttempt(attempt: NodeAttempt<UnsupportedAction>): Promise<AttemptOutcome> {
    const error = attempt.node.action.reason;
    return recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error, failureKind: 'config' });
  }
}
