import type { ApprovalContext } from '../../store/schemas/approval.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import { approvalPatch } from './approval-patch.js';
import { budgetPausePatch, budgetPauseReason } from './budget.js';

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

/** Paused by its USD budget: what was spent of how much. */
export function budgetPause(run: Run, spentUsd: number, budgetUsd: number): RunPause {
  return {
    event: newRunLevelEvent(run, 'workflow_paused', {
      reason: budgetPauseReason(spentUsd, budgetUsd),
      type: 'budget',
      spentUsd,
      budgetUsd,
    }),
    patch: budgetPausePatch(spentUsd, budgetUsd),
  };
}
