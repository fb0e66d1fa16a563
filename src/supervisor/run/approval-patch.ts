import type { ApprovalContext, Rejections } from '../../store/schemas/approval.js';

/**
 * The metadata patch (JSON merge patch) that records what a paused run waits for. Every key of
 * the context is written, absent ones as null (which removes them), so nothing of an earlier
 * gate's context survives the merge. A gate paused again after its `on_reject` rework no longer
 * owes that rework.
 */
export function approvalPatch(approval: ApprovalContext, rejection: Rejections[string] | undefined): Record<string, unknown> {
  const keys = ['type', 'nodeId', 'message', 'captureResponse', 'onRejectMaxAttempts', 'decisions', 'iteration', 'resolved', 'childRunId'] as const;
  const context: Record<string, unknown> = {};
  for (const key of keys) context[key] = approval[key] ?? null;
  const patch: Record<string, unknown> = { approval: context };
  if (rejection?.reworkPending) patch.rejections = { [approval.nodeId]: { reworkPending: null } };
  return patch;
}
