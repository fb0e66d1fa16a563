import type { Approval, Run, RunStatus } from '../types.js';

/**
 * Which operations a run's status allows, and when one does not, why: the dashboard disables the
 * button and shows the reason. The server decides in the end (the same rules, src/runs/): a run
 * that moved on since the page last heard refuses with its own message, which the page shows.
 */

export type RunAction = 'approve' | 'reject' | 'cancel' | 'resume' | 'abandon' | 'delete';

export interface ActionVerdict {
  allowed: boolean;
  reason?: string;
}

const cancellable: RunStatus[] = ['pending', 'running', 'paused'];
const resumable: RunStatus[] = ['failed', 'paused'];
const abandonable: RunStatus[] = ['running', 'paused', 'failed'];
const terminal: RunStatus[] = ['completed', 'failed', 'cancelled'];

/** The gate a run waits at that nobody answered yet, if any. */
export function openGate(run: Run): Approval | undefined {
  const approval = run.metadata.approval;
  return run.status === 'paused' && approval && !approval.resolved ? approval : undefined;
}

export function actionVerdict(run: Run, action: RunAction): ActionVerdict {
  const is = `The run is ${run.status}`;
  switch (action) {
    case 'approve':
    case 'reject': {
      const done = action === 'approve' ? 'approved' : 'rejected';
      if (run.status !== 'paused') return { allowed: false, reason: `${is}: only a run paused at a gate can be ${done}` };
      const gate = run.metadata.approval;
      if (!gate) return { allowed: false, reason: 'The run is paused, but not at a gate' };
      if (gate.resolved) return { allowed: false, reason: `The gate was already ${gate.resolved}` };
      if (gate.type === 'child_workflow') {
        return { allowed: false, reason: `The run waits on its child run ${gate.childRunId ?? ''}: answer the gate there` };
      }
      return { allowed: true };
    }
    case 'cancel':
      return cancellable.includes(run.status) ? { allowed: true } : { allowed: false, reason: `${is}: only a pending, running or paused run can be cancelled` };
    case 'resume':
      return resumable.includes(run.status) ? { allowed: true } : { allowed: false, reason: `${is}: only a failed or paused run can be resumed` };
    case 'abandon':
      return abandonable.includes(run.status) ? { allowed: true } : { allowed: false, reason: `${is}: only a running, paused or failed run can be abandoned` };
    case 'delete':
      return terminal.includes(run.status)
        ? { allowed: true }
        : { allowed: false, reason: `${is}: only a completed, failed or cancelled run can be deleted (cancel it first)` };
  }
}
