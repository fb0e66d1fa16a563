import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { CheckCondition, SubstituteText } from '../run/node-context.js';
import type { NodeEventFactory } from '../run/node-events.js';
import type { NodeHandler, NodeHandlerSet } from '../run/node-handler.js';
import type { PlannedNode } from '../run/run-plan.js';
import { GateNodeHandler } from './gate.js';
import { HaltNodeHandler } from './halt.js';
import { LoopDriver } from './loop-driver.js';
import { LoopGroupNodeHandler } from './loop-group.js';
import { LoopNodeHandler } from './loop.js';
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
  /** For loop_group bodies: `when` conditions and the records of body nodes decided without an attempt. */
  checkCondition: CheckCondition;
  events: NodeEventFactory;
}): NodeHandlerSet {
  const { store, run, substituteText } = deps;
  const driver = new LoopDriver({ store, run, substituteText, exec: deps.exec });
  const self = (): NodeHandlerSet => set;
  const byAction: Record<PlannedNode['action']['type'], NodeHandler> = {
    exec: deps.exec,
    gate: new GateNodeHandler({ store, run, substituteText, exec: deps.exec, agent: deps.agent }),
    halt: new HaltNodeHandler({ store, run, substituteText }),
    wait: new WaitNodeHandler({ store, run, substituteText }),
    agent: deps.agent,
    loop: new LoopNodeHandler(driver, self),
    loop_group: new LoopGroupNodeHandler({ driver, handlers: self, store, events: deps.events, checkCondition: deps.checkCondition }),
    unsupported: new UnsupportedNodeHandler({ store, run }),
  };
  const set: NodeHandlerSet = { handlerFor: (node) => byAction[node.action.type] };
  return set;
}
