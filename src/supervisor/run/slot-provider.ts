import { reworkNodeOf } from '../nodes/gate.js';
import type { PlannedNode } from './run-plan.js';

/**
 * The provider whose slot a node takes before it runs (per-provider limits, rate budgets and the
 * run's USD budget all go by it): an AI node's own provider; for a `loop:` or a `loop_group:`, the
 * provider its body calls. The body runs inside the loop's attempt, one call at a time (a
 * loop_group runs its body nodes one after another), so the loop's one slot covers its calls and
 * a body never waits for a provider slot while it holds a global one, which could deadlock with
 * a node that holds the provider slot and waits for a global one. A body that calls more than one
 * provider takes the slot of the first in its body's order; docs/providers.md says so. An
 * approval gate whose `on_reject` rework is a prompt takes the slot of the provider the rework
 * calls: the rework runs inside the gate's attempt.
 */
export function slotProviderOf(node: PlannedNode, providerOfAiNode: (node: PlannedNode) => string | undefined): string | undefined {
  switch (node.action.type) {
    case 'agent':
      return providerOfAiNode(node);
    case 'loop':
      return slotProviderOf(node.action.body, providerOfAiNode);
    case 'loop_group': {
      const body = node.action.body;
      for (const id of body.order) {
        const provider = slotProviderOf(body.nodes.find((n) => n.id === id)!, providerOfAiNode);
        if (provider !== undefined) return provider;
      }
      return undefined;
    }
    case 'gate': {
      const rework = node.action.onReject?.body;
      return rework?.kind === 'prompt' ? providerOfAiNode(reworkNodeOf(rework)) : undefined;
    }
    default:
      return undefined;
  }
}
