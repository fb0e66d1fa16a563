import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { NodeHandler, NodeHandlerSet } from '../run/node-handler.js';
import type { PlannedNode } from '../run/run-plan.js';
import { UnsupportedNodeHandler } from './unsupported.js';

/**
 * One handler per node action. Adding a node kind means adding its handler here and an action
 * in run-plan.ts; the scheduler does not change.
 */
export function createNodeHandlers(deps: {
  exec: NodeHandler;
  agent: NodeHandler;
  store: Store;
  run: Pick<Run, 'id' | 'conversation_id'>;
}): NodeHandlerSet {
  const unsupported = new UnsupportedNodeHandler({ store: deps.store, run: deps.run });
  const byAction: Record<PlannedNode['action']['type'], NodeHandler> = {
    exec: deps.exec,
    agent: deps.agent,
    unsupported,
  };
  return { handlerFor: (node) => byAction[node.action.type] };
}
