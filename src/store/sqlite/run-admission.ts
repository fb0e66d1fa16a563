import type Database from 'better-sqlite3';
import type { NewRun } from '../runs.js';
import type { Run } from '../schemas/run.js';
import { decideAdmission, moveWaiting, resumePolicy, type Admission, type AdmittedRun } from '../rules/run-concurrency.js';
import { concurrencyStatements } from './concurrency-sql.js';
import { conversationStatements } from './conversations-sql.js';
import { eventStatements } from './events-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';

/**
 * Creates runs the one way every path does (the run route, chat, child runs, schedules,
 * webhooks): the run row, its conversation, its events (`workflow_queued` announces it on the live
 * stream at once), and its `start_run` job when its concurrency policy
 * (rules/run-concurrency.ts) gives it a place. Called inside the caller's BEGIN IMMEDIATE
 * transaction, which is what makes the decision exact: no other writer reads the key between.
 */
export function runAdmission(db: Database.Database) {
  const runs = runStatements(db);
  const jobs = jobStatements(db);
  const events = eventStatements(db);
  const conversations = conversationStatements(db);
  const keys = concurrencyStatements(db);

  return {
    admit(run: NewRun, now: string): AdmittedRun {
      const policy = run.metadata.concurrency;
      const admission = policy ? decideAdmission(policy, run.workflowName, keys.openOfKey(run.workflowName, policy.key)) : { outcome: 'start' as const };
      if (admission.outcome === 'refuse') return { refused: admission.reason, holders: admission.holders };
      const toInsert =
        admission.outcome === 'wait'
          ? { ...run, metadata: { ...run.metadata, concurrency: { ...policy!, waiting_for: admission.waitingFor, position: admission.position } } }
          : run;
      if (run.conversation) conversations.insert(run.conversation, now);
      const created = runs.insert(toInsert, now);
      if (admission.outcome === 'start') jobs.insert('start_run', run.id, {}, now);
      const cancelled = admission.outcome === 'wait' ? admission.cancel : [];
      for (const runId of cancelled) jobs.insert('cancel_run', runId, {}, now);
      if (run.events?.length) events.append(run.events, now);
      return { run: created, cancelled };
    },

    /** What a resume of `run` finds among its key's open runs; undefined when it asks for no place (resumePolicy). */
    decideResume(run: Run): Admission | undefined {
      const policy = resumePolicy(run);
      return policy && decideAdmission(policy, run.workflow_name, keys.openOfKey(run.workflow_name, policy.key), 'resume');
    },

    /** A resume that waits: the runs its policy cancels get their `cancel_run` job, and the key's line is read again. */
    resumeWaits(run: Run, cancel: readonly string[], now: string): void {
      for (const runId of cancel) jobs.insert('cancel_run', runId, {}, now);
      this.reline(run.workflow_name, run.metadata.concurrency!.key, now);
    },

    /** The key's waiting runs that fit now start (their `start_run` job); the others learn whom they wait for. */
    startWaiting(workflowName: string, key: string, endedRunId: string, now: string): void {
      keys.patch(endedRunId, { waiting_for: undefined, position: undefined });
      this.reline(workflowName, key, now);
    },

    /** The key's line, oldest first: the waiting runs that fit start, the others learn whom they wait for and their place. */
    reline(workflowName: string, key: string, now: string): void {
      const moves = moveWaiting(keys.openOfKey(workflowName, key));
      for (const runId of moves.start) {
        keys.patch(runId, { waiting_for: undefined, position: undefined });
        jobs.insert('start_run', runId, {}, now);
      }
      for (const run of moves.still) keys.patch(run.id, { waiting_for: run.waitingFor, position: run.position });
    },
  };
}
