import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler } from '../run/node-handler.js';
import { recordRefusedAttempt } from './attempt-records.js';

/** Node kinds this version cannot execute: each attempt fails at once with a configuration error. */
export class UnsupportedNodeHandler implements NodeHandler {
  constructor(private readonly deps: { store: Store; run: Pick<Run, 'id' | 'conversation_id'> }) {}

  runAttempt(attempt: NodeAttempt): Promise<AttemptOutcome> {
    const action = attempt.node.action;
    const error = action.type === 'unsupported' ? action.reason : `Node '${attempt.node.id}' has no executor`;
    return recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error, failureKind: 'config' });
  }
}
