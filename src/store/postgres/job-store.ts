import { randomUUID } from 'node:crypto';
import type { JobStore } from '../jobs.js';
import { failedAttempt, holdsClaimedJob } from '../rules/job-leases.js';
import { fenceRefusal, jobFenceRefusal } from '../rules/write-fence.js';
import { eventStatements } from './events-sql.js';
import { jobStatements } from './jobs-sql.js';
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
      // One statement (jobs-sql.ts claim): a wake-up that finds nothing costs the one round trip
      // a look for open jobs would. A claim whose answer was lost is found by its token.
      let token = '';
      return session.statement(
        'claim a job',
        (q) => jobStatements(q).claim(ownerId, session.now(leaseMs), session.now(), (token = randomUUID())),
        (q) => jobStatements(q).claimedWith(ownerId, token),
      );
    },

    finishJob: async (jobId, ownerId, result) => {
      // Writing it again after a lost answer changes nothing.
      await session.statement('finish a job', (q) => jobStatements(q).finishHeld(jobId, ownerId, result));
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
