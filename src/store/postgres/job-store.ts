import type { JobStore } from '../jobs.js';
import { failedAttempt, holdsClaimedJob, mayFinishJob } from '../rules/job-leases.js';
import { cancelRequestAfter } from '../rules/run-ownership.js';
import { cancelRecordedByClaim } from '../rules/run-requests.js';
import { fenceRefusal, jobFenceRefusal } from '../rules/write-fence.js';
import { eventStatements } from './events-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';
import type { PgSession } from './session.js';

/** JobStore over the session's pool: jobs are claimed with FOR UPDATE SKIP LOCKED (jobs-sql.ts); `writer` as in pgEventStore. */
export function pgJobStore(session: PgSession, writer?: string): JobStore {
  return {
    enqueueJob: (kind, runId, payload = {}, opts = {}) =>
      session.write('queue a job', async (q) => {
        const { onBehalfOf: asker, underJob } = opts;
        // Fenced: the asking run's owner, or the asking job's holder, is read under its row lock, kept until this commits.
        const refused =
          writer === undefined
            ? undefined
            : (asker === undefined ? undefined : fenceRefusal([asker], await eventStatements(q).lockOwners([asker]), writer)) ??
              (underJob === undefined ? undefined : jobFenceRefusal(underJob, await jobStatements(q).get(underJob, true), writer));
        if (refused) throw refused;
        return jobStatements(q).insert(kind, runId, payload, session.now());
      }),

    claimJob: async (ownerId, leaseMs) => {
      // A read first: the claim loop wakes on every commit, and most wake-ups find nothing to claim.
      if (!(await session.read('look for open jobs', (q) => jobStatements(q).hasOpen(session.now())))) return undefined;
      return session.write('claim a job', async (q) => {
        const runs = runStatements(q);
        const now = session.now();
        const job = await jobStatements(q).claim(ownerId, session.now(leaseMs), now);
        // Recorded as of when the user asked, which is what getCancelRequestedAt said while it was queued.
        if (job?.run_id) {
          const cancelAt = cancelRecordedByClaim(job);
          const held = cancelAt === undefined ? undefined : await runs.hold(job.run_id);
          if (held && cancelAt !== undefined) await runs.setCancelRequestedAt(job.run_id, cancelRequestAfter(held, cancelAt));
        }
        return job;
      });
    },

    finishJob: async (jobId, ownerId, result) => {
      await session.write('finish a job', async (q) => {
        const jobs = jobStatements(q);
        if (mayFinishJob(await jobs.get(jobId, true), ownerId)) await jobs.finish(jobId, result);
      });
    },

    failJobAttempt: async (jobId, ownerId, error, retryInMs, opts = {}) => {
      await session.write('record a failed job attempt', async (q) => {
        const jobs = jobStatements(q);
        const job = await jobs.get(jobId, true);
        if (job && holdsClaimedJob(job, ownerId)) await jobs.failAttempt(jobId, failedAttempt(job, error, session.now(retryInMs), opts.counted !== false));
      });
    },

    renewJobLeases: async (ownerId, jobIds, leaseMs) =>
      jobIds.length === 0
        ? 0
        : session.write('renew job leases', async (q) => {
            const jobs = jobStatements(q);
            const held = (await jobs.some(jobIds)).filter((job) => holdsClaimedJob(job, ownerId));
            await jobs.renew(held.map((job) => job.id), session.now(leaseMs));
            return held.length;
          }),

    requeueJobsOf: async (ownerIds) =>
      ownerIds.length === 0 ? 0 : session.write('requeue the jobs of gone supervisors', (q) => jobStatements(q).requeue(ownerIds)),

    msUntilNextDueJob: () =>
      session.read('read when the next job is due', async (q) => {
        const now = session.now();
        const at = await jobStatements(q).nextDue(now);
        return at === undefined ? undefined : Math.max(0, Date.parse(at) - Date.parse(now));
      }),

    getJob: (jobId) => session.read('read a job', (q) => jobStatements(q).get(jobId)),

    listRunJobs: (runId) => session.read('list the jobs of a run', (q) => jobStatements(q).listByRun(runId)),
  };
}
