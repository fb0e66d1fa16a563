import type { Job } from '../schemas/job.js';

/**
 * A claimed job is held under a lease by its claimant: what the holder may do with it. The
 * choice of the job a claim takes stays a query in each backend (it must not read every open
 * job): the oldest due job, claimed under no live lease, whose run no other live supervisor
 * owns, one chat turn per conversation and a bounded number at once (store/jobs.ts claimJob).
 */

type Held = Pick<Job, 'status' | 'lease_owner'>;

/** Only the job's holder finishes it (a job taken over after its lease lapsed is the new holder's). */
export function mayFinishJob(job: Held | undefined, ownerId: string): boolean {
  return job !== undefined && job.lease_owner === ownerId;
}

/** Only the holder of a claimed job extends its lease, or records a failed attempt at it. */
export function holdsClaimedJob(job: Held | undefined, ownerId: string): boolean {
  return job !== undefined && job.status === 'claimed' && job.lease_owner === ownerId;
}

/**
 * What recording a failed attempt writes: the holder keeps the job until `retryAt`, so nobody
 * claims it again before its delay is over; an attempt that failed for a reason outside the job
 * (`counted: false`, a full disk) gives its claim back, so it never uses up the job's tries.
 */
export function failedAttempt(job: Pick<Job, 'attempts'>, error: string, retryAt: string, counted: boolean): Pick<Job, 'last_error' | 'lease_expires_at' | 'attempts'> {
  return { last_error: error, lease_expires_at: retryAt, attempts: counted ? job.attempts : job.attempts - 1 };
}
