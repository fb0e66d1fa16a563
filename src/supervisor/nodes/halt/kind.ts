import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import type { NodeKind } from '../node-kind.js';
import type { HaltAction } from './action.js';
import { HaltNodeHandler } from './halt.js';

/** `cancel:` nodes: the node completes and ends the run cancelled with its reason. */
export const haltKind: NodeKind<HaltAction> = {
  type: 'halt',
  plan: (node: WorkflowNode) => ('cancel' in node ? { type: 'halt', reason: node.cancel } : undefined),
  handler: ({ services }) => new HaltNodeHandler({ store: services.store, run: services.run, substituteText: services.context.substituteText }),
};
