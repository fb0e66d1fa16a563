import { RUN_LEASE_MS } from '../process/run-registry.js';
import type { JobHandler } from './job-handler.js';

/**
 * `cancel_run`: a run this supervisor drives is cancelled by its scheduler (queued nodes dropped,
 * running ones killed and confirmed gone, then the run recorded cancelled); a pending or paused
 * run is cancelled at once; a running run nobody drives is taken over first, so its orphaned
 * processes are found and killed.
 */
export const cancelRunJob: JobHandler = {
  mode: 'background',
  async handle(job, { store, runs, supervisorId }) {
    const runId = job.run_id;
    let scheduler = runs.get(runId);
    if (!scheduler) {
      const run = await store.getRun(runId);
      if (!run) return 'ignored: run is gone';
      if (run.status === 'pending' || run.status === 'paused') {
        const cancelled = await store.acquireRun({
          runId, ownerId: supervisorId, leaseMs: RUN_LEASE_MS, fromStatuses: [run.status], status: 'cancelled',
          events: [{ run_id: runId, conversation_id: run.conversation_id, event_type: 'workflow_cancelled', step_name: null, data: { reason: 'Cancelled by user' } }],
        });
        if (cancelled) await store.releaseRuns(supervisorId, [runId]);
        return cancelled ? 'cancelled' : 'ignored: run changed state';
      }
      if (run.status !== 'running') return `ignored: run is ${run.status}`;
      scheduler = await runs.takeOver(run);
      if (!scheduler) return 'ignored: run is owned by a live supervisor';
    }
    await scheduler.cancel();
    return 'cancelled';
  },
};
