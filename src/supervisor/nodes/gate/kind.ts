import { DEFAULT_ON_REJECT_MAX_ATTEMPTS } from '../../../workflow/schema/node-blocks.js';
import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import type { NodeKind } from '../node-kind.js';
import type { GateAction } from './action.js';
import { GateNodeHandler, reworkNodeOf } from './gate.js';

/** `approval:` gates: they suspend for a person's answer; an `on_reject` rework runs inside the gate's attempt. */
export const gateKind: NodeKind<GateAction> = {
  type: 'gate',
  plan(node: WorkflowNode) {
    if (!('approval' in node)) return undefined;
    const { message, capture_response: capture, on_reject: onReject, decisions } = node.approval;
    return {
      type: 'gate',
      message,
      captureResponse: capture === true,
      ...(onReject
        ? {
            onReject: {
              body: onReject.bash !== undefined ? { kind: 'bash', source: onReject.bash } : { kind: 'prompt', source: onReject.prompt ?? '' },
              maxAttempts: onReject.max_attempts ?? DEFAULT_ON_REJECT_MAX_ATTEMPTS,
            },
          }
        : {}),
      ...(decisions ? { decisions: decisions.map((d) => (d.label !== undefined ? { id: d.id, label: d.label } : { id: d.id })) } : {}),
    };
  },
  handler: ({ services, handlers }) =>
    new GateNodeHandler({ store: services.store, run: services.run, substituteText: services.context.substituteText, handlers }),
  // A prompt rework calls a provider inside the gate's attempt: the gate takes that provider's slot.
  slotProvider(node, run) {
    const rework = node.action.onReject?.body;
    return rework?.kind === 'prompt' ? run.slotProviderOf(reworkNodeOf(rework)) : undefined;
  },
};
