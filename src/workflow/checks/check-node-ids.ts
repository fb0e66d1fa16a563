import { MAX_NODE_ID_LENGTH, quotedNodeId, type DefinitionNode } from '../schema/node-schema.js';

/**
 * The ids a workflow declares (its nodes and its loop_group bodies' nodes) that are longer than
 * MAX_NODE_ID_LENGTH, one error each. Checked on the definition as written, before include
 * expansion: the composed `<include>__<id>` ids of a run's stored definition are not the
 * author's to shorten, and a too-long id is refused when the workflow loads, never when the
 * node's output is written after its process succeeded.
 */
export function checkNodeIdLengths(nodes: readonly DefinitionNode[], label = (id: string) => `Node '${id}'`): string[] {
  const errors: string[] = [];
  for (const node of nodes) {
    if (node.id.length > MAX_NODE_ID_LENGTH) {
      const quoted = quotedNodeId(node.id);
      errors.push(
        `${label(quoted)}: node id '${quoted}' is ${node.id.length} characters long: a node id is at most ${MAX_NODE_ID_LENGTH} characters; shorten it`,
      );
    }
    if ('loop_group' in node) {
      const group = quotedNodeId(node.id);
      errors.push(...checkNodeIdLengths(node.loop_group.nodes, (id) => `${label(group)} → loop_group node '${id}'`));
    }
  }
  return errors;
}
