import type { JobHandler } from './job-handler.js';
import { endRun } from './end-run.js';

/**
 * `cancel_run`: stops a pending, running or paused run and records it cancelled (see endRun:
 * running nodes are killed first, and a run nobody drives is taken over to find its orphans).
 */
export const cancelRunJob: JobHandler<'cancel_run'> = {
  mode: 'background',
  handle: (job, ctx) => endRun(job, ctx, { reason: 'Cancelled by user', idleStatuses: ['pending', 'paused'] }),
};
