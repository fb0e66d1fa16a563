import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import { bodyWithGroupDefaults } from '../../../workflow/schema/loop-group-defaults.js';
import { LoopDriver } from '../loop-driver.js';
import { loopControlOf } from '../loop-control.js';
import type { NodeKind } from '../node-kind.js';
import type { LoopGroupAction } from './action.js';
import { LoopGroupNodeHandler } from './loop-group.js';

/**
 * `loop_group:` nodes: the body nodes run as a sub-DAG once per iteration, at `<group>/<id>`, inside the group's attempt;
 * its AI nodes take the group's `provider` and `model` when they set none.
 */
export const loopGroupKind: NodeKind<LoopGroupAction> = {
  type: 'loop_group',
  plan(node: WorkflowNode, planner) {
    if (!('loop_group' in node)) return undefined;
    const group = node.loop_group;
    return { type: 'loop_group', ...loopControlOf(group, group.nodes.map((n) => n.id), planner), body: planner.planNodes(node.id, bodyWithGroupDefaults(node)) };
  },
  handler: ({ services, handlers }) =>
    new LoopGroupNodeHandler({
      driver: new LoopDriver({ store: services.store, run: services.run, substituteText: services.context.substituteText, handlers }),
      handlers,
      store: services.store,
      events: services.events,
      checkCondition: services.context.checkCondition,
    }),
  // Its body nodes run one after another inside its attempt: it takes the slot of the first provider in their order.
  slotProvider(node, run) {
    const body = node.action.body;
    for (const id of body.order) {
      const provider = run.slotProviderOf(body.nodes.find((n) => n.id === id)!);
      if (provider !== undefined) return provider;
    }
    return undefined;
  },
  restore: { innerPathPrefixes: (node) => [`${node.id}/`], continuesAfterInterruption: true },
};
