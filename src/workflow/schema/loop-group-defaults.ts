import type { LoopGroupNode, WorkflowNode } from './node-schema.js';

/**
 * A `loop_group`'s `provider` and `model` are defaults of the AI nodes of its body (prompt,
 * command, loop, and a nested group's own defaults): a body node's own key wins over the group's,
 * the group's over the workflow's. As with the workflow's model, the group's `model` is only
 * taken by a body node that runs on the group's provider: one that names another provider keeps
 * that provider's default model rather than a model meant for the group's.
 */
export function bodyWithGroupDefaults(group: LoopGroupNode): WorkflowNode[] {
  const { provider, model } = group;
  const body = group.loop_group.nodes;
  if (provider === undefined && model === undefined) return body;
  return body.map((node) => {
    if (!('prompt' in node || 'command' in node || 'loop' in node || 'loop_group' in node)) return node;
    const ownProvider = node.provider ?? provider;
    const sameProvider = node.provider === undefined || node.provider === provider;
    const ownModel = node.model ?? (sameProvider ? model : undefined);
    return {
      ...node,
      ...(ownProvider !== undefined ? { provider: ownProvider } : {}),
      ...(ownModel !== undefined ? { model: ownModel } : {}),
    };
  });
}
