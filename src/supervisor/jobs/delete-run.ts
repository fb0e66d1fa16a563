import { rm } from 'node:fs/promises';
import { terminalRunStatuses } from '../../store/schemas/run.js';
import type { JobHandler } from './job-handler.js';

/** A run id that is one plain path segment: the only kind whose folder is ever removed. */
const safeRunId = /^[A-Za-z0-9_-]+$/;

/**
 * `delete_run`: removes a terminal run: its folder under the home (scratch working directory and
 * artifacts) first, then the run row with its events and jobs in one transaction, so a supervisor
 * that dies in between leaves a run whose delete, claimed again, finishes. A project directory
 * the run worked in is the user's and is never touched. Deleting a run that is gone is done.
 */
export const deleteRunJob: JobHandler = {
  mode: 'inline',
  async handle(job, { store, paths }) {
    const run = await store.getRun(job.run_id);
    if (!run) return 'deleted';
    if (!terminalRunStatuses.includes(run.status)) return `ignored: run is ${run.status}`;
    if (safeRunId.test(run.id)) await rm(paths.runFolder(run.id), { recursive: true, force: true });
    return (await store.deleteRun(run.id, terminalRunStatuses)) ? 'deleted' : 'ignored: run changed state';
  },
};
