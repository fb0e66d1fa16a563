import { CairnError } from '../../shared/errors.js';
import { runIdOf, type JobHandler } from './job-handler.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';

/**
 * `cancel_run`: a run this supervisor drives is cancelled by its scheduler (queued nodes dropped,
 * running ones killed and confirmed gone, then the run recorded cancelled); a pending or paused
 * run is cancelled at once; a running run nobody drives is taken over first, so its orphaned
 * processes are found and killed.
 *
 * Claiming the job already recorded the cancel request on the run (JobStore.claimJob), so if
 * this supervisor dies midway, whoever takes the run over cancels it instead of resuming it,
 * and this job, claimed again, finds the run cancelled.
 */
export const cancelRunJob: JobHandler = {
  mode: 'background',
  async handle(job, { store, runs, supervisorId }) {
    const runId = runIdOf(job);
    let scheduler = await runs.driving(runId);
    if (!scheduler) {
      const run = await store.getRun(runId);
      if (!run) return 'ignored: run is gone';
      // Carried out already: by a take-over that honoured the request, or an earlier cancel.
      if (run.status === 'cancelled') return 'cancelled';
      if (run.status === 'pending' || run.status === 'paused') {
        const cancelled = await store.acquireRun({
          runId, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: [run.status], status: 'cancelled',
          events: [newRunLevelEvent(run, 'workflow_cancelled', { reason: 'Cancelled by user' })],
        });
        if (cancelled) await store.releaseRuns(supervisorId, [runId]);
        return cancelled ? 'cancelled' : 'ignored: run changed state';
      }
      if (run.status !== 'running') return `ignored: run is ${run.status}`;
      scheduler = await runs.takeOver(run);
      if (!scheduler) {
        // Its owner is alive (and will be handed this job once ours lapses), or we are stopping.
        throw new CairnError('RUN_INVALID_STATE', `Run ${runId} is driven by another supervisor, or this one is stopping; the cancel is retried`);
      }
    }
    await scheduler.cancel();
    const end = await scheduler.done;
    if (end === 'released') {
      // Shut down (or lost the run) before the cancel was recorded: the request stays on the run,
      // and the next supervisor to drive it cancels it.
      throw new CairnError('RUN_INVALID_STATE', `Run ${runId} was let go before its cancel was recorded; the next supervisor completes it`);
    }
    return end === 'cancelled' ? 'cancelled' : `ignored: run ended ${end} before the cancel`;
  },
};
