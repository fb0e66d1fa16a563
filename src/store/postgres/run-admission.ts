import type { NewRun } from '../runs.js';
import { decideAdmission, moveWaiting, type AdmittedRun } from '../rules/run-concurrency.js';
import { concurrencyStatements } from './concurrency-sql.js';
import { conversationStatements } from './conversations-sql.js';
import { eventStatements } from './events-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';
import type { Query } from './session.js';

/**
 * Creates runs the one way every path does, as the SQLite backend's run-admission.ts: the run
 * row, its conversation, and its `start_run` job when its concurrency policy
 * (rules/run-concurrency.ts) gives it a place. The key's advisory lock, taken before its runs are
 * read and held to the commit, makes the decision exact across connections and supervisors.
 */
export function runAdmission(q: Query) {
  const jobs = jobStatements(q);
  const keys = concurrencyStatements(q);

  return {
    async admit(run: NewRun, now: string): Promise<AdmittedRun> {
      const policy = run.metadata.concurrency;
      let admission: ReturnType<typeof decideAdmission> = { outcome: 'start' };
      if (policy) {
        await keys.lockKey(run.workflowName, policy.key);
        admission = decideAdmission(policy, run.workflowName, await keys.openOfKey(run.workflowName, policy.key));
      }
      if (admission.outcome === 'refuse') return { refused: admission.reason, holders: admission.holders };
      const toInsert =
        admission.outcome === 'wait'
          ? { ...run, metadata: { ...run.metadata, concurrency: { ...policy!, waiting_for: admission.waitingFor, position: admission.position } } }
          : run;
      if (run.conversation) await conversationStatements(q).insert(run.conversation, now);
      const created = await runStatements(q).insert(toInsert, now);
      if (admission.outcome === 'start') await jobs.insert('start_run', run.id, {}, now);
      const cancelled = admission.outcome === 'wait' ? admission.cancel : [];
      for (const runId of cancelled) await jobs.insert('cancel_run', runId, {}, now);
      if (run.events?.length) await eventStatements(q).append(run.events, now);
      return { run: created, cancelled };
    },

    /** The key's waiting runs that fit now start (their `start_run` job); the others learn whom they wait for. */
    async startWaiting(workflowName: string, key: string, endedRunId: string, now: string): Promise<void> {
      await keys.lockKey(workflowName, key);
      await keys.patch(endedRunId, { waiting_for: undefined, position: undefined });
      const moves = moveWaiting(await keys.openOfKey(workflowName, key));
      for (const runId of moves.start) {
        await keys.patch(runId, { waiting_for: undefined, position: undefined });
        await jobs.insert('start_run', runId, {}, now);
      }
      for (const run of moves.still) await keys.patch(run.id, { waiting_for: run.waitingFor, position: run.position });
    },
  };
}
