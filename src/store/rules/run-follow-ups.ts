import type { JobKind } from '../schemas/job.js';
import type { Run, RunStatus } from '../schemas/run.js';
import { isTerminal } from './run-ownership.js';

/**
 * What a change of a run's state brings with it, in the same transaction: the engine's rules
 * that used to live inside the SQLite backend (reportToChat, tellParent, dropWakeUpIfEnded, the
 * release of an ended run's environment). A backend carries out the follow-ups it is given, in
 * order, and decides none of them itself.
 */
export type RunFollowUp =
  /** Queue a job; with `onlyIfNone`, not when the run has a job of that kind already (any status). */
  | { kind: 'queue_job'; job: JobKind; runId: string; payload: Record<string, unknown>; notBefore?: string; onlyIfNone?: true }
  /** Close the run's queued (unclaimed) jobs of `job` with `result`. */
  | { kind: 'close_queued'; job: JobKind; runId: string; result: string }
  /** Release the run's hold on its isolation environment (its worktree stays, unlocked). */
  | { kind: 'release_isolation'; runId: string }
  /**
   * A run of a concurrency key ended: the key's waiting runs that fit now get their `start_run`
   * job (rules/run-concurrency.ts moveWaiting decides which), in this same transaction. The ended
   * run itself, if it was still waiting (cancelled in line), waits no more: a resume of it runs.
   */
  | { kind: 'start_waiting'; workflowName: string; key: string; endedRunId: string };

export interface RunChange {
  /** The run as the change left it. */
  run: Run;
  /** Which operation changed it. */
  by: 'acquire' | 'transition';
  /** The status the change asked for, if it named one. */
  status: RunStatus | undefined;
  /** The change's time (ISO). */
  now: string;
}

/** The follow-ups of a run's change, in the order they are to be stored. */
export function followUpsOf(change: RunChange): RunFollowUp[] {
  const { run, now } = change;
  const ended = isTerminal(run.status);
  const followUps: RunFollowUp[] = [];
  // reportToChat: a run dispatched from a chat reports its end there, once; the job is queued
  // by the transaction that ends it, so the report survives any restart between the two.
  const chat = run.metadata.parent_conversation_id;
  if (chat && ended) {
    followUps.push({ kind: 'queue_job', job: 'workflow_result', runId: run.id, payload: { conversationId: chat }, onlyIfNone: true });
  }
  // dropWakeUpIfEnded: a run that ended has nothing to wake for.
  if (ended) followUps.push({ kind: 'close_queued', job: 'wake_run', runId: run.id, result: `run ended ${run.status} at ${now}` });
  // tellParent: a child run that pauses or ends, by a change that named its status, tells its
  // parent durably (supervisor/jobs/child-run-settled.ts carries it out).
  if (change.status !== undefined && run.parent_run_id !== null && (run.status === 'paused' || ended)) {
    followUps.push({ kind: 'queue_job', job: 'child_run_settled', runId: run.parent_run_id, payload: { childRunId: run.id, status: run.status } });
  }
  // resumeAtReset: a run that failed on a provider's usage limit, with `auto_resume`, is resumed
  // once the limit resets (supervisor/run/quota-resume.ts put when in its metadata).
  const autoResumeAt = (run.metadata.auto_resume as { at?: unknown } | null | undefined)?.at;
  if (change.by === 'transition' && change.status === 'failed' && typeof autoResumeAt === 'string') {
    followUps.push({ kind: 'queue_job', job: 'resume_run', runId: run.id, payload: { auto: { at: autoResumeAt } }, notBefore: autoResumeAt });
  }
  // startWaiting: a run of a concurrency key that ends frees its place; the next waiting run's
  // `start_run` job is queued by the transaction that ends it, so no crash leaves it waiting.
  const concurrency = run.metadata.concurrency;
  if (ended && concurrency) followUps.push({ kind: 'start_waiting', workflowName: run.workflow_name, key: concurrency.key, endedRunId: run.id });
  // A run its owner ends holds no environment any more.
  if (change.by === 'transition' && change.status !== undefined && isTerminal(change.status)) {
    followUps.push({ kind: 'release_isolation', runId: run.id });
  }
  return followUps;
}

/**
 * The follow-ups of letting a run sleep until `wakeAt`: one wake-up, replacing any older one
 * still queued, not claimable before `wakeAt`.
 */
export function sleepFollowUps(runId: string, wakeAt: string): RunFollowUp[] {
  return [
    { kind: 'close_queued', job: 'wake_run', runId, result: 'superseded by a later wake-up' },
    { kind: 'queue_job', job: 'wake_run', runId, payload: { wakeAt }, notBefore: wakeAt },
  ];
}
