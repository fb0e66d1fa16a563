import type { JobStore } from '../jobs.js';
import { failedAttempt, holdsClaimedJob, mayFinishJob } from '../rules/job-leases.js';
import { cancelRequestAfter } from '../rules/run-ownership.js';
import { cancelRecordedByClaim } from '../rules/run-requests.js';
import { fenceRefusal, jobFenceRefusal } from '../rules/write-fence.js';
import { eventStatements } from './events-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';
import type { SqliteSession } from './session.js';

/** JobStore over the session's connection; `writer` as in sqliteEventStore. */
export function sqliteJobStore(session: SqliteSession, writer?: string): JobStore {
  const jobs = jobStatements(session.db);
  const runs = runStatements(session.db);
  const events = eventStatements(session.db);

  return {
    enqueueJob: (kind, runId, payload = {}, opts = {}) =>
      session.write('queue a job', () => {
        const { onBehalfOf: asker, underJob } = opts;
        // Fenced: the asking run's owner, or the asking job's holder, is read inside the write transaction (one writer at a time).
        const refused =
          writer === undefined
            ? undefined
            : (asker === undefined ? undefined : fenceRefusal([asker], events.owners([asker]), writer)) ??
              (underJob === undefined ? undefined : jobFenceRefusal(underJob, jobs.get(underJob), writer));
        if (refused) throw refused;
        return jobs.insert(kind, runId, payload, session.now());
      }),

    claimJob: async (ownerId, leaseMs) => {
      if (!(await session.read('look for open jobs', () => jobs.hasOpen(session.now())))) return undefined;
      return session.write('claim a job', () => {
        const now = session.now();
        const job = jobs.claim(ownerId, session.now(leaseMs), now);
        // Recorded as of when the user asked, which is what getCancelRequestedAt said while it was queued.
        if (job?.run_id) {
          const cancelAt = cancelRecordedByClaim(job);
          const held = cancelAt === undefined ? undefined : runs.hold(job.run_id);
          if (held && cancelAt !== undefined) runs.setCancelRequestedAt(job.run_id, cancelRequestAfter(held, cancelAt));
        }
        return job;
      });
    },

    finishJob: async (jobId, ownerId, result) => {
      await session.write('finish a job', () => {
        if (mayFinishJob(jobs.get(jobId), ownerId)) jobs.finish(jobId, result);
      });
    },

    failJobAttempt: async (jobId, ownerId, error, retryInMs, opts = {}) => {
      await session.write('record a failed job attempt', () => {
        const job = jobs.get(jobId);
        if (job && holdsClaimedJob(job, ownerId)) jobs.failAttempt(jobId, failedAttempt(job, error, session.now(retryInMs), opts.counted !== false));
      });
    },

    // Nothing to renew or requeue (the usual case, each heartbeat) takes no write lock.
    renewJobLeases: async (ownerId, jobIds, leaseMs) =>
      jobIds.length === 0
        ? 0
        : session.write('renew job leases', () => {
            const leaseUntil = session.now(leaseMs);
            const held = jobs.some(jobIds).filter((job) => holdsClaimedJob(job, ownerId));
            held.forEach((job) => jobs.renew(job.id, leaseUntil));
            return held.length;
          }),

    requeueJobsOf: async (ownerIds) =>
      ownerIds.length === 0 ? 0 : session.write('requeue the jobs of gone supervisors', () => jobs.requeue(ownerIds)),

    msUntilNextDueJob: () =>
      session.read('read when the next job is due', () => {
        const now = session.now();
        const at = jobs.nextDue(now);
        return at === undefined ? undefined : Math.max(0, Date.parse(at) - Date.parse(now));
      }),

    getJob: (jobId) => session.read('read a job', () => jobs.get(jobId)),

    listRunJobs: (runId) => session.read('list the jobs of a run', () => jobs.listByRun(runId)),
  };
}
