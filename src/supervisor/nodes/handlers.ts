import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { SubstituteText } from '../run/node-context.js';
import type { NodeHandler, NodeHandlerSet } from '../run/node-handler.js';
import type { PlannedNode } from '../run/run-plan.js';
import { GateNodeHandler } from './gate.js';
import { HaltNodeHandler } from './halt.js';
import { UnsupportedNodeHandler } from './unsupported.js';
import { WaitNodeHandler } from './wait.js';

/**
 * One handler per node action. Adding a node kind means adding its handler here and an action
 * in run-plan.ts; the scheduler does not change.
 */
export function createNodeHandlers(deps: {
  exec: NodeHandler;
  agent: NodeHandler;
  store: Store;
  run: Pick<Run, 'id' | 'conversation_id' | 'metadata'>;
  substituteText: SubstituteText;
}): NodeHandlerSet {
  const { store, run, substituteText } = deps;
  const byAction: Record<PlannedNode['action']['type'], NodeHandler> = {
    exec: deps.exec,
    gate: new GateNodeHandler({ store, run, substituteText, exec: deps.exec }),
    halt: new HaltNodeHandler({ store, run, substituteText }),
    wait: new WaitNodeHandler({ store, run, substituteText }),
    agent: deps.agent,
    unsupported: new UnsupportedNodeHandler({ store, run }),
  };
  return { handlerFor: (node) => byAction[node.action.type] };
}
