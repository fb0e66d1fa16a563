import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import type { NodeKind } from '../node-kind.js';
import type { WaitAction } from './action.js';
import { WaitNodeHandler } from './wait.js';

/** `wait:` nodes: a durable timer, holding no slot while it waits. */
export const waitKind: NodeKind<WaitAction> = {
  type: 'wait',
  plan(node: WorkflowNode) {
    if (!('wait' in node)) return undefined;
    const { duration_ms: durationMs, until, message } = node.wait;
    return {
      type: 'wait',
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(message !== undefined ? { message } : {}),
    };
  },
  handler: ({ services }) => new WaitNodeHandler({ store: services.store, run: services.run, substituteText: services.context.substituteText }),
};
