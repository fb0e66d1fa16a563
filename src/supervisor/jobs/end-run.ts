import { CairnError } from '../../shared/errors.js';
import type { Job } from '../../store/schemas/job.js';
import type { RunStatus } from '../../store/schemas/run.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import { closeSuspendedAttempts } from './close-suspended.js';
import { runIdOf, type JobContext } from './job-handler.js';

export interface EndRunOptions {
  /** `data.reason` of the run's `workflow_cancelled` event. */
  reason: string;
  /** Statuses of a run nobody drives that are ended at once (nothing of the run is running). */
  idleStatuses: readonly RunStatus[];
}

/**
 * Ends a run as `cancelled`, for `cancel_run` and `abandon_run`: a run this supervisor drives is
 * cancelled by its scheduler (queued nodes dropped, running ones killed and confirmed gone, then
 * the run recorded cancelled); a run in one of `idleStatuses` is cancelled at once; a running run
 * nobody drives is taken over first, so its orphaned processes are found and killed.
 *
 * Claiming the job already recorded the cancel request on the run (JobStore.claimJob), so if
 * this supervisor dies midway, whoever takes the run over cancels it instead of resuming it,
 * and the job, claimed again, finds the run cancelled.
 */
export async function endRun(job: Job, { store, runs, supervisorId }: JobContext, opts: EndRunOptions): Promise<string> {
  const runId = runIdOf(job);
  let scheduler = await runs.driving(runId);
  if (!scheduler) {
    const run = await store.getRun(runId);
    if (!run) return 'ignored: run is gone';
    // Carried out already: by a take-over that honoured the request, or an earlier cancel.
    if (run.status === 'cancelled') return 'cancelled';
    if (opts.idleStatuses.includes(run.status)) {
      // A paused run's gate (or interactive loop) attempt is closed in the same transaction.
      const closing = run.status === 'paused' ? closeSuspendedAttempts(run, await store.listRunEvents(runId), opts.reason) : [];
      const cancelled = await store.acquireRun({
        runId, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: [run.status], status: 'cancelled',
        events: [...closing, newRunLevelEvent(run, 'workflow_cancelled', { reason: opts.reason })],
      });
      if (cancelled) await store.releaseRuns(supervisorId, [runId]);
      return cancelled ? 'cancelled' : 'ignored: run changed state';
    }
    if (run.status !== 'running') return `ignored: run is ${run.status}`;
    scheduler = await runs.takeOver(run);
    if (!scheduler) {
      // Its owner is alive (and will be handed this job once ours lapses), or we are stopping.
      throw new CairnError('RUN_INVALID_STATE', `Run ${runId} is driven by another supervisor, or this one is stopping; the request is retried`);
    }
  }
  await scheduler.cancel(opts.reason);
  const end = await scheduler.done;
  if (end === 'released') {
    // Shut down (or lost the run) before the cancel was recorded: the request stays on the run,
    // and the next supervisor to drive it cancels it.
    throw new CairnError('RUN_INVALID_STATE', `Run ${runId} was let go before its cancel was recorded; the next supervisor completes it`);
  }
  return end === 'cancelled' ? 'cancelled' : `ignored: run ended ${end} before the cancel`;
}
