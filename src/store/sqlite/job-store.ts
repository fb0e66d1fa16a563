import type { JobStore } from '../jobs.js';
import { jobStatements } from './jobs-sql.js';
import type { SqliteSession } from './session.js';

/** JobStore over the session's connection. */
export function sqliteJobStore(session: SqliteSession): JobStore {
  const jobs = jobStatements(session.db);

  return {
    enqueueJob: (kind, runId, payload = {}) =>
      session.write('queue a job', () => jobs.insert(kind, runId, payload, session.now())),

    claimJob: async (ownerId, leaseMs) => {
      if (!(await session.read('look for open jobs', () => jobs.hasOpen()))) return undefined;
      return session.write('claim a job', () => jobs.claim(ownerId, session.now(leaseMs), session.now()));
    },

    finishJob: async (jobId, ownerId, result) => {
      await session.write('finish a job', () => jobs.finish(jobId, ownerId, result));
    },
  };
}
