import type { GateDecisionAnswer, RunContinuationAnswer, RunEnding } from '../runs.js';
import { isCancellingJobKind, type GateDecisionJobKind, type Job, type JobKind } from '../schemas/job.js';
import type { Run, RunStatus } from '../schemas/run.js';
import { isTerminal } from './run-ownership.js';

/**
 * What a user's request of a run (a gate answer, a resume, a cancel) may do given the run's
 * state and its open jobs: pure decisions that every backend takes inside the transaction that
 * queues the request's job.
 */

/** The cancel or abandon a run's oldest open cancelling job stands for, if any. */
export function endingOf(openCancelling: Pick<Job, 'kind' | 'created_at'> | undefined): RunEnding | undefined {
  return openCancelling && isCancellingJobKind(openCancelling.kind)
    ? { kind: openCancelling.kind, requestedAt: openCancelling.created_at }
    : undefined;
}

/** What the backend must answer a gate decision with, or `queue` when it must queue the job. */
export type GateDecision = { queue: true; run: Run } | (GateDecisionAnswer & { queued: false });

/**
 * A gate answer (approve or reject) applies only to a paused run that no cancel will end, and
 * only when no other answer to it is still open: two answers sent together are one queued and
 * one refused.
 */
export function decideGateAnswer(
  run: Run | undefined,
  facts: { ending: RunEnding | undefined; openAnswer: GateDecisionJobKind | undefined },
): GateDecision {
  if (!run || run.status !== 'paused') return { queued: false, run };
  if (facts.ending) return { queued: false, run, ending: facts.ending };
  if (facts.openAnswer) return { queued: false, run, open: facts.openAnswer };
  return { queue: true, run };
}

/** What the backend must answer a continuation with, or `queue` when it must queue the job. */
export type ContinuationDecision = { queue: true; run: Run } | (RunContinuationAnswer & { queued: false });

/**
 * A job that carries a run on (a resume) applies only to a run in one of `fromStatuses` that no
 * cancel or abandon will end: such a run ends cancelled whatever else is asked of it.
 */
export function decideContinuation(
  run: Run | undefined,
  fromStatuses: readonly RunStatus[],
  ending: RunEnding | undefined,
): ContinuationDecision {
  if (!run || !fromStatuses.includes(run.status)) return { queued: false, run };
  if (ending) return { queued: false, run, ending };
  return { queue: true, run };
}

/**
 * When a cancel of the run was first requested (RunStore.getCancelRequestedAt): the recorded
 * request, else a cancel or abandon queued and not claimed yet while the run has not ended (a
 * take-over or a start that reads this before the claim must not run the run on).
 */
export function cancelRequestedAt(
  recorded: string | null,
  queued: Pick<Job, 'created_at'> | undefined,
  status: RunStatus | undefined,
): string | null {
  if (recorded !== null) return recorded;
  return queued && status !== undefined && !isTerminal(status) ? queued.created_at : null;
}

/**
 * Claiming a cancel or abandon job records the cancel request on its run in the same
 * transaction, as of when the user asked (the job's creation), so the request outlives the
 * claimant. Returns the time to record, or undefined when the claim records nothing.
 */
export function cancelRecordedByClaim(job: Pick<Job, 'kind' | 'run_id' | 'created_at'>): string | undefined {
  return job.run_id !== null && isCancellingJobKind(job.kind as JobKind) ? job.created_at : undefined;
}
