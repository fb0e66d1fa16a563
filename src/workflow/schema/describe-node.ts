import type { NodeDescriptor } from '../../records/schemas/node-descriptor.js';
import type { WorkflowNode } from './node-schema.js';

/**
 * The contract's `node` group for a node of a loaded workflow: its id and record kind, with
 * the extras the kind carries (an agent's source, an exec node's runtime, a fanned-out
 * workflow node's `fanOut`).
 */
export function describeNode(node: WorkflowNode): NodeDescriptor {
  const { id } = node;
  if ('prompt' in node) return { id, kind: 'agent', source: { kind: 'inline' } };
  if ('command' in node) return { id, kind: 'agent', source: { kind: 'command', name: node.command } };
  if ('bash' in node) return { id, kind: 'exec', runtime: 'sh' };
  if ('script' in node) return { id, kind: 'exec', runtime: node.runtime };
  if ('loop' in node) return node.loop.command ? { id, kind: 'loop', command: node.loop.command } : { id, kind: 'loop' };
  if ('loop_group' in node) return { id, kind: 'loop_group' };
  if ('approval' in node) return { id, kind: 'gate' };
  if ('cancel' in node) return { id, kind: 'halt' };
  if ('wait' in node) return { id, kind: 'wait' };
  if ('github' in node) return { id, kind: 'github' };
  return node.fan_out ? { id, kind: 'workflow', fanOut: true } : { id, kind: 'workflow' };
}
