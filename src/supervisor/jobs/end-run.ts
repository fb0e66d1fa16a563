import { CairnError } from '../../shared/errors.js';
import { isFenced } from '../../store/rules/write-fence.js';
import type { Job } from '../../store/schemas/job.js';
import type { RunStatus } from '../../store/schemas/run.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import { closeSuspendedAttempts } from '../run/close-suspended.js';
import { runIdOf, type JobContext } from './job-handler.js';
import type { Run } from '../../store/schemas/run.js';

export interface EndRunOptions {
  /** `data.reason` of the run's `workflow_cancelled` event. */
  reason: string;
  /** Statuses of a run nobody drives that are ended at once (nothing of the run is running). */
  idleStatuses: readonly RunStatus[];
}

/**
 * Ends a run as `cancelled`, for `cancel_run` and `abandon_run`: a run this supervisor drives is
 * cancelled by its scheduler (queued nodes dropped, running ones killed and confirmed gone, then
 * the run recorded cancelled); a run in one of `idleStatuses`, or a running run asleep until a
 * long wait ends, is cancelled at once; another running run nobody drives is taken over first,
 * so its orphaned processes are found and killed.
 *
 * Claiming the job already recorded the cancel request on the run (JobStore.claimJob), so if
 * this supervisor dies midway, whoever takes the run over cancels it instead of resuming it,
 * and the job, claimed again, finds the run cancelled.
 */
export async function endRun(job: Job, { store, runs, supervisorId, log }: JobContext, opts: EndRunOptions): Promise<string> {
  const runId = runIdOf(job);
  await cascade(job, { store, log });
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
    const asleep = await endSleepingRun(run, { store, runs, supervisorId }, opts.reason);
    if (asleep !== undefined) return asleep;
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

/**
 * A sleeping run (released until its `wake_run` job; see RunStore.sleepRun) has nothing in
 * flight and nobody driving it: it is ended at once, as a paused run is, its `wait` attempt (and
 * any gate's) closed as cancelled in the same transaction, which also drops its wake-up.
 * Undefined when the run is not asleep (then it is taken over to be cancelled).
 */
async function endSleepingRun(run: Run, { store, runs, supervisorId }: Pick<JobContext, 'store' | 'runs' | 'supervisorId'>, reason: string): Promise<string | undefined> {
  if (run.owner_id !== null) return undefined;
  const jobs = await store.listRunJobs(run.id);
  if (!jobs.some((job) => job.kind === 'wake_run' && job.status !== 'done')) return undefined;
  const closing = closeSuspendedAttempts(run, await store.listRunEvents(run.id), reason);
  const cancelled = await store.acquireRun({
    runId: run.id, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: ['running'], status: 'cancelled', onlyUnowned: true,
    events: [...closing, newRunLevelEvent(run, 'workflow_cancelled', { reason })],
  });
  if (!cancelled) return undefined; // woken meanwhile: cancelled through whoever drives it now
  await store.releaseRuns(supervisorId, [run.id]);
  return 'cancelled';
}

/**
 * Cancel and abandon reach every descendant that has not ended (child runs of `workflow:` nodes,
 * their children ...): each gets a `cancel_run` job of its own, so its processes are killed as a
 * cancel kills them, by whoever drives it, whatever dies in between. A descendant that could not
 * be asked is logged (the abandon answer counts what has not ended). Each is asked under this
 * job (store/rules/write-fence.ts): a supervisor paused past the job's lease, whose job another
 * claimed and carried out meanwhile (the run may since have been resumed with its children),
 * cancels nothing on resuming; the rest of the cascade is then left to the job's holder.
 */
async function cascade(job: Job, { store, log }: Pick<JobContext, 'store' | 'log'>): Promise<void> {
  const runId = runIdOf(job);
  const descendants = await store.listOpenDescendants(runId);
  for (const run of descendants) {
    const refused = await store.enqueueJob('cancel_run', run.id, { cascadeFrom: runId }, { underJob: job.id }).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (refused === undefined) continue;
    if (isFenced(refused)) {
      log.error({ err: refused, runId, jobId: job.id, descendant: run.id }, 'run.cascade_fenced');
      throw refused;
    }
    log.warn({ err: refused, runId, descendant: run.id }, 'run.cascade_failed');
  }
}
