import { runIdOf, type JobHandler } from './job-handler.js';

/**
 * `wake_run`: the moment a sleeping run waited for has come (the job is not claimable before
 * it; see RunStore.sleepRun). The run is taken over as after a crash: rebuilt from its events,
 * its `wait` attempt continued (so it completes as the same attempt), its cancel honoured if one
 * was requested. Handling it twice is harmless: a run driven by someone, or no longer running,
 * is left alone.
 */
export const wakeRunJob: JobHandler<'wake_run'> = {
  mode: 'inline',
  async handle(job, { store, runs }) {
    const runId = runIdOf(job);
    if (await runs.driving(runId)) return 'ignored: the run is driven here';
    const run = await store.getRun(runId);
    if (!run) return 'ignored: run is gone';
    if (run.status !== 'running') return `ignored: run is ${run.status}`;
    return (await runs.takeOver(run)) ? 'woken' : 'ignored: the run is driven by a live supervisor, or this one is stopping';
  },
};
