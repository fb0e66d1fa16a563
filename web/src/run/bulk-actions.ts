import { actionVerdict, type RunAction } from './run-actions.js';
import { runOperation } from './run-operations.js';
import type { Run } from '../types.js';

/**
 * An operation on several runs at once (the runs page's selection): which of the selected runs
 * allow it, why none does when none does, and what happened to each run it was asked of.
 */

export type BulkAction = Extract<RunAction, 'cancel' | 'resume' | 'delete'>;
export const bulkActions: readonly BulkAction[] = ['cancel', 'resume', 'delete'];

const pastTense: Record<BulkAction, string> = { cancel: 'cancelled', resume: 'resumed', delete: 'deleted' };

export interface BulkVerdict {
  /** The selected runs the operation is asked of. */
  runs: Run[];
  /** Set when no selected run allows it. */
  reason?: string;
}

export function bulkVerdict(selected: Run[], action: BulkAction): BulkVerdict {
  if (selected.length === 0) return { runs: [], reason: 'Select runs first (the boxes at the left, or x)' };
  const runs = selected.filter((run) => actionVerdict(run, action).allowed);
  if (runs.length > 0) return { runs };
  const statuses = [...new Set(selected.map((run) => run.status))].join(', ');
  const rule = actionVerdict(selected[0]!, action).reason?.split(': ').slice(1).join(': ') ?? '';
  return { runs, reason: `No selected run can be ${pastTense[action]} (${statuses}): ${rule}` };
}

export interface BulkOutcome {
  run: Run;
  ok: boolean;
  message: string;
}

/** Asks each run in turn (a run's refusal does not stop the others) and reports each. */
export async function runBulk(runs: Run[], action: BulkAction): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = [];
  for (const run of runs) {
    try {
      outcomes.push({ run, ok: true, message: await runOperation(run.id, action) });
    } catch (err) {
      outcomes.push({ run, ok: false, message: (err as Error).message });
    }
  }
  return outcomes;
}

/** The selected runs the operation was not asked of, each with why. */
export function skipped(selected: Run[], action: BulkAction): BulkOutcome[] {
  return selected
    .filter((run) => !actionVerdict(run, action).allowed)
    .map((run) => ({ run, ok: false, message: `skipped: ${actionVerdict(run, action).reason ?? ''}` }));
}
