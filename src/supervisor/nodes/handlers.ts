import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { CheckCondition, SubstituteText } from '../run/node-context.js';
import type { NodeEventFactory } from '../run/node-events.js';
import type { NodeHandler, NodeHandlerSet } from '../run/node-handler.js';
import type { PlannedNode } from '../run/run-plan.js';
import type { ChildRuns } from '../children/child-runs.js';
import type { AttemptLimiter } from '../process/limits.js';
import { ChildRunNodeHandler } from './child-run.js';
import { InRunFanOut } from './fan-out-in-run.js';
import { GateNodeHandler } from './gate.js';
import { HaltNodeHandler } from './halt.js';
import { LoopDriver } from './loop-driver.js';
import { LoopGroupNodeHandler } from './loop-group.js';
import { LoopNodeHandler } from './loop.js';
import { UnsupportedNodeHandler } from './unsupported.js';
import { WaitNodeHandler } from './wait.js';
import type { RunSlots } from '../run/run-slots.js';

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
  /** The parent's side of `workflow:` nodes' child runs. */
  children: ChildRuns;
  /** The global limit, which in-run fan-out instances' nodes take slots of. */
  limiter: AttemptLimiter;
  /** The run's own limit, which they take slots of too. */
  runSlots: RunSlots;
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
    child_run: new ChildRunNodeHandler({
      store, run, substituteText, children: deps.children,
      inRun: new InRunFanOut({ store, run, handlers: self, events: deps.events, checkCondition: deps.checkCondition, limiter: deps.limiter, runSlots: deps.runSlots }),
    }),
    unsupported: new UnsupportedNodeHandler({ store, run }),
  };
  const set: NodeHandlerSet = { handlerFor: (node) => byAction[node.action.type] };
  return set;
}
