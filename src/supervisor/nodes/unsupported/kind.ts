import type { NodeDescriptor } from '../../../records/schemas/node-descriptor.js';
import type { NodeKind } from '../node-kind.js';
import type { UnsupportedAction } from './action.js';
import { UnsupportedNodeHandler } from './unsupported.js';

/**
 * What a written node no kind plans becomes: each attempt fails at once with a configuration error.
 * The registry's fallback, never matched by `plan`.
 */
export const unsupportedKind: NodeKind<UnsupportedAction> = {
  type: 'unsupported',
  plan: () => undefined,
  handler: ({ services }) => new UnsupportedNodeHandler({ store: services.store, run: services.run }),
};

export function unsupportedAction(id: string, descriptor: NodeDescriptor): UnsupportedAction {
  return {
    type: 'unsupported',
    kind: descriptor.kind,
    reason: `Node '${id}': '${descriptor.kind}' nodes cannot run yet in this version of Cairn (no executor for them). Remove the node or run the workflow where this node kind is supported.`,
  };
}
