import { CairnError } from '../shared/errors.js';
import type { Schedule } from '../store/schemas/schedule.js';
import type { NewRun, Store } from '../store/store.js';
import type { WorkflowEntry } from '../workflow/catalog/discover-workflows.js';
import { resolveRunInputs } from '../workflow/schema/run-inputs.js';
import { isInteractive, scheduleRefusal } from '../workflow/schema/interactive.js';
import { newRunOf } from './queue-run.js';

/** Finds a workflow by name as a run request would: the project under `cwd` first, then home, then bundled. */
export type WorkflowLookup = (name: string, query: { cwd?: string | undefined }) => Promise<WorkflowEntry>;

/**
 * The run one fire of a schedule starts; or why it cannot be made (recorded as a `failed` fire);
 * or why it must not be (the workflow became interactive: recorded as a `skipped` fire).
 */
export type ScheduledRun = { run: NewRun } | { failure: string } | { skip: string };

/**
 * Makes the run of a schedule's due time the way the run route would: the workflow as its file
 * reads now (the project's, when the schedule names a codebase), the schedule's inputs checked
 * and defaulted, on the codebase's checkout. Nothing is written: the store creates the run in the
 * transaction that decides the due time.
 */
export async function scheduledRunOf(
  deps: { store: Store; lookup: WorkflowLookup; clock: () => number },
  schedule: Schedule,
  dueAt: string,
  manual = false,
): Promise<ScheduledRun> {
  try {
    const codebase = schedule.codebase_id ? await deps.store.getCodebase(schedule.codebase_id) : undefined;
    if (schedule.codebase_id && !codebase) return { failure: `codebase '${schedule.codebase_id}' is no longer registered` };
    const entry = await deps.lookup(schedule.workflow_name, { cwd: codebase?.default_cwd });
    if (isInteractive(entry.workflow)) return { skip: scheduleRefusal(entry.workflow.name) };
    const inputs = resolveRunInputs(entry.workflow.name, entry.workflow.inputs, { text: schedule.inputs });
    return {
      run: newRunOf({
        entry,
        inputs,
        message: `${manual ? 'Run now' : 'Scheduled run'} of schedule ${schedule.name} (due ${dueAt})`,
        workingPath: codebase?.default_cwd ?? null,
        codebaseId: codebase?.id ?? null,
        schedule: { id: schedule.id, name: schedule.name, due_at: dueAt, manual },
        clock: deps.clock,
      }),
    };
  } catch (err) {
    if (err instanceof CairnError && err.code !== 'STORE_UNAVAILABLE') return { failure: err.message };
    throw err;
  }
}
