import type { NewRun } from '../runs.js';
import type { Run } from '../schemas/run.js';
import { decideAdmission, moveWaiting, resumePolicy, type Admission, type AdmittedRun } from '../rules/run-concurrency.js';
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

    /** What a resume of `run` finds among its key's open runs (under the key's lock); undefined when it asks for no place. */
    async decideResume(run: Run): Promise<Admission | undefined> {
      const policy = resumePolicy(run);
      if (!policy) return undefined;
      await keys.lockKey(run.workflow_name, policy.key);
      return decideAdmission(policy, run.workflow_name, await keys.openOfKey(run.workflow_name, policy.key), 'resume');
    },

    /** A resume that waits: the runs its policy cancels get their `cancel_run` job, and the key's line is read again. */
    async resumeWaits(run: Run, cancel: readonly string[], now: string): Promise<void> {
      for (const runId of cancel) await jobs.insert('cancel_run', runId, {}, now);
      await this.reline(run.workflow_name, run.metadata.concurrency!.key, now);
    },

    /** The key's waiting runs that fit now start (their `start_run` job); the others learn whom they wait for. */
    async startWaiting(workflowName: string, key: string, endedRunId: string, now: string): Promise<void> {
      await keys.lockKey(workflowName, key);
      await keys.patch(endedRunId, { waiting_for: undefined, position: undefined });
      await this.reline(workflowName, key, now);
    },

    /** The key's line, oldest first (the key's lock held): the waiting runs that fit start, the others learn their place. */
    async reline(workflowName: string, key: string, now: string): Promise<void> {
      const moves = moveWaiting(await keys.openOfKey(workflowName, key));
      for (const runId of moves.start) {
        await keys.patch(runId, { waiting_for: undefined, position: undefined });
        await jobs.insert('start_run', runId, {}, now);
      }
      for (const run of moves.still) await keys.patch(run.id, { waiting_for: run.waitingFor, position: run.position });
    },
  };
}
