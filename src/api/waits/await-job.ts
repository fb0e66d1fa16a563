import type { Job } from '../../store/schemas/job.js';
import { decodeJobResult, type JobResultOf, type TypedJobKind } from '../../store/schemas/job-results.js';
import type { Store } from '../../store/store.js';
import { awaitStore } from './await-store.js';

/** How long a run operation's answer waits for the supervisor to carry the job out. */
export const JOB_ANSWER_WAIT_MS = 15_000;

/** A job as its request's answer sees it: done with its result, gone with its run, or still open. */
export type JobOutcome = { state: 'done'; result: string } | { state: 'gone' } | { state: 'open' };

/**
 * Waits until the supervisor has finished `jobId` (woken by the store's change notification, not
 * a poll of our own), at most `waitMs`. A job that disappears went with its run (a delete).
 * `open` means the supervisor has not carried it out yet (it is busy, or not running): the job
 * stays queued and is carried out when a supervisor claims it.
 */
export async function awaitJob(store: Pick<Store, 'getJob' | 'onChange'>, jobId: number, waitMs = JOB_ANSWER_WAIT_MS): Promise<JobOutcome> {
  const look = async (): Promise<JobOutcome | undefined> => {
    const job: Job | undefined = await store.getJob(jobId);
    if (!job) return { state: 'gone' };
    return job.status === 'done' ? { state: 'done', result: job.result ?? '' } : undefined;
  };
  return awaitStore(store, look, waitMs, () => ({ state: 'open' }));
}

/** A job of a typed kind as its request's answer sees it: done with its typed result, gone with its run, or still open. */
export type TypedJobOutcome<K extends TypedJobKind> = { state: 'done'; result: JobResultOf<K> } | { state: 'gone' } | { state: 'open' };

/** As awaitJob, for a job of a kind whose result is typed (store/schemas/job-results.ts): its result read back. */
export async function awaitTypedJob<K extends TypedJobKind>(
  store: Pick<Store, 'getJob' | 'onChange'>,
  job: Pick<Job, 'id'> & { kind: K },
  waitMs = JOB_ANSWER_WAIT_MS,
): Promise<TypedJobOutcome<K>> {
  const outcome = await awaitJob(store, job.id, waitMs);
  return outcome.state === 'done' ? { state: 'done', result: decodeJobResult(job.kind, outcome.result) } : outcome;
}
