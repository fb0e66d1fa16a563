import type { ApprovalContext } from '../../store/schemas/approval.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import { approvalPatch } from './approval-patch.js';
import { budgetPausePatch, budgetPauseReason, type BudgetReached } from './budget.js';

/** What a paused run records: its `workflow_paused` event and the metadata saying why. */
export interface RunPause {
  event: NewRunEvent;
  patch: Record<string, unknown>;
}

/** Paused at a gate (an approval, or a child run to wait for): what it waits for. */
export function gatePause(run: Run, path: string, approval: ApprovalContext): RunPause {
  const reason =
    approval.type === 'child_workflow'
      ? `Blocked on child run ${approval.childRunId} at '${path}': ${approval.message}`
      : `Approval required at '${path}': ${approval.message}`;
  return {
    event: newRunLevelEvent(run, 'workflow_paused', { reason, nodeId: path, type: approval.type }),
    patch: approvalPatch(approval, run.metadata.rejections?.[path]),
  };
}

/** Paused by a USD budget (its own, or one of a run above it): what was spent of how much, and whose. */
export function budgetPause(run: Run, reached: BudgetReached): RunPause {
  return {
    event: newRunLevelEvent(run, 'workflow_paused', {
      reason: budgetPauseReason(reached, run.id),
      type: 'budget',
      spentUsd: reached.spent,
      budgetUsd: reached.usd,
      ...(reached.runId !== run.id ? { budgetRunId: reached.runId } : {}),
    }),
    patch: budgetPausePatch(reached, run.id, new Date().toISOString()),
  };
}
