import type { Job, JobKind } from './schemas/job.js';

/**
 * The job queue between the API process (which only enqueues) and the supervisors (which claim
 * under a lease and finish). A run's `start_run` job is written by `RunStore.createRun`.
 */
/** Whose hold a supervisor's job request is conditional on (JobStore.enqueueJob). */
export interface EnqueueFence {
  onBehalfOf?: string;
  underJob?: number;
}

export interface JobStore {
  /**
   * Queues a job for the supervisor (cancel, and later resume, approve ...). `opts.onBehalfOf`:
   * the run whose driver asks (a parent run asking for its child to be cancelled or resumed).
   * With a store opened for a supervisor (its `writer`), the job is then queued only while that
   * supervisor owns that run, checked under the run's row lock in the queueing transaction, and is
   * otherwise refused with the fence's error (store/rules/write-fence.ts: a supervisor paused past
   * its lease and resumed after a take-over asks nothing of the runs below it). `opts.underJob`:
   * the job whose handler asks (a `cancel_run` cascading to the run's descendants); with a
   * `writer`, queued only while that supervisor holds the job (claimed, under its lease owner),
   * read under the job's row lock, else refused the same way (rules/write-fence.ts jobFenceRefusal).
   */
  enqueueJob(kind: JobKind, runId: string, payload?: Record<string, unknown>, opts?: EnqueueFence): Promise<Job>;
  /**
   * Claims the oldest job that is queued, or claimed under a lease that has expired, and counts
   * the claim in `attempts`; a job with `not_before` is not claimed before that moment. Jobs for a run owned by another live supervisor are left for that
   * supervisor. Claiming a `cancel_run` job records the cancel request on its run (as of the job's
   * `created_at`) in the same transaction (see RunStore.getCancelRequestedAt); so does claiming an
   * `abandon_run` job, so the request outlives the claimant.
   */
  claimJob(ownerId: string, leaseMs: number): Promise<Job | undefined>;
  /**
   * How long until the next job that waits for a moment (`not_before`, a sleeping run's
   * `wake_run`) becomes claimable; undefined when no job waits. The claim loop sleeps that long
   * at most, so a job due later wakes it without polling.
   */
  msUntilNextDueJob(): Promise<number | undefined>;
  finishJob(jobId: number, ownerId: string, result: string): Promise<void>;
  /**
   * Records why an attempt at a job `ownerId` holds failed; nobody claims the job again until
   * `retryInMs` has passed. With `counted: false` the claim is taken back from `attempts`: the
   * attempt failed for a reason outside the job (a full disk), which must never use up its tries.
   */
  failJobAttempt(jobId: number, ownerId: string, error: string, retryInMs: number, opts?: { counted?: boolean }): Promise<void>;
  /** Extends the leases of the named jobs `ownerId` still holds (jobs still being worked on). Returns how many. */
  renewJobLeases(ownerId: string, jobIds: readonly number[], leaseMs: number): Promise<number>;
  /**
   * Puts the claimed jobs of owners known to be gone back in the queue, claimable at once rather
   * than when their leases expire. Returns how many.
   */
  requeueJobsOf(ownerIds: readonly string[]): Promise<number>;
  /** One job by id; undefined once it is gone (a deleted run takes its jobs with it). */
  getJob(jobId: number): Promise<Job | undefined>;
  /** The jobs of a run, oldest first. */
  listRunJobs(runId: string): Promise<Job[]>;
}
