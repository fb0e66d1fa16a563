import type { JobHandler } from './job-handler.js';
import { endRun } from './end-run.js';

/** What `workflow_cancelled.reason` says of an abandoned run. */
export const ABANDONED_REASON = 'Abandoned by user';

/**
 * `abandon_run`: ends a running, paused or failed run for good, as `cancelled` (the upstream's
 * status machine: abandon → cancelled). A running run is stopped as a cancel stops it, its
 * processes killed first; a failed or paused run is recorded cancelled at once, so it can no
 * longer be resumed. Every descendant run that has not ended is cancelled with it (endRun).
 */
export const abandonRunJob: JobHandler<'abandon_run'> = {
  mode: 'background',
  handle: (job, ctx) => endRun(job, ctx, { reason: ABANDONED_REASON, idleStatuses: ['pending', 'paused', 'failed'] }),
};
