import type { Job, JobKind } from './schemas/job.js';

/**
 * The job queue between the API process (which only enqueues) and the supervisors (which claim
 * under a lease and finish). A run's `start_run` job is written by `RunStore.createRun`.
 */
export interface JobStore {
  /** Queues a job for the supervisor (cancel, and later resume, approve ...). */
  enqueueJob(kind: JobKind, runId: string, payload?: Record<string, unknown>): Promise<Job>;
  /**
   * Claims the oldest job that is queued, or claimed under a lease that has expired. Jobs for a
   * run owned by another live supervisor are left for that supervisor.
   */
  claimJob(ownerId: string, leaseMs: number): Promise<Job | undefined>;
  finishJob(jobId: number, ownerId: string, result: string): Promise<void>;
}
