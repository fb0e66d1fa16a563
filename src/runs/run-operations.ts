import { runProjectDir } from '../codebases/run-project-dir.js';
import { CairnError } from '../shared/errors.js';
import { concurrencyRefusal } from '../store/rules/run-concurrency.js';
import { approvalContextSchema } from '../store/schemas/approval.js';
import type { GateDecisionJobKind, Job } from '../store/schemas/job.js';
import type { Run, RunStatus } from '../store/schemas/run.js';
import type { RunEnding, Store } from '../store/store.js';
import type { WorkflowEntry } from '../workflow/catalog/discover-workflows.js';
import { gateErrorText, runErrorText } from './run-texts.js';

/**
 * The rules of operations on a run, as the routes and the chat both ask for them: which statuses
 * each applies to, and the requests that check and queue in one step. The supervisor carries
 * every operation out (a job); nothing here changes a run's state.
 */

/** The statuses a run can be resumed from (upstream: RESUMABLE_WORKFLOW_STATUSES). */
export const resumableRunStatuses: readonly RunStatus[] = ['failed', 'paused'];
export const abandonableRunStatuses: readonly RunStatus[] = ['running', 'paused', 'failed'];

export type GateVerb = 'approve' | 'reject';

const kindOfVerb: Record<GateVerb, GateDecisionJobKind> = { approve: 'approve_run', reject: 'reject_run' };
const answerOfKind: Record<GateDecisionJobKind, 'approved' | 'rejected'> = { approve_run: 'approved', reject_run: 'rejected' };

/** The refusal of an operation on a run that a queued cancel or abandon is about to end. */
function endingRefusal(verb: string, run: Run, ending: RunEnding): CairnError {
  const how = ending.kind === 'abandon_run' ? 'abandon' : 'cancel';
  return new CairnError('RUN_INVALID_STATE', runErrorText.ending(verb, run.status, how, ending.requestedAt));
}

/** Why an answer does not apply to the run as it is. */
function gateRefusal(verb: GateVerb, run: Run | undefined, open?: GateDecisionJobKind, ending?: RunEnding): CairnError {
  if (!run) return new CairnError('RUN_NOT_FOUND', gateErrorText.notFound);
  if (ending) return endingRefusal(verb, run, ending);
  if (open) return new CairnError('RUN_INVALID_STATE', gateErrorText.alreadyAnswered(answerOfKind[open]));
  if (run.status !== 'paused') return new CairnError('RUN_INVALID_STATE', gateErrorText.cannot(verb, run.status));
  return new CairnError('RUN_INVALID_STATE', gateErrorText.missingContext);
}

/**
 * Queues the answer to the gate a paused run waits at, when it applies (the run is paused at a
 * gate nobody has answered yet), atomically; throws the refusal naming why otherwise. Answers
 * the run and the gate's node id.
 */
export async function requestGateAnswer(
  store: Store,
  runId: string,
  verb: GateVerb,
  payload: { comment?: string; reason?: string },
): Promise<{ run: Run; gate: string }> {
  const run = await store.getRun(runId);
  if (!run || run.status !== 'paused') throw gateRefusal(verb, run);
  const approval = approvalContextSchema.safeParse(run.metadata.approval);
  if (!approval.success) throw gateRefusal(verb, run);
  if (approval.data.resolved) throw new CairnError('RUN_INVALID_STATE', gateErrorText.alreadyAnswered(approval.data.resolved));
  // Blocked on a child run: the answer belongs to the child (the parent goes on when it ends).
  if (approval.data.type === 'child_workflow' && approval.data.childRunId) {
    throw new CairnError('RUN_INVALID_STATE', gateErrorText.blockedOnChild(verb, approval.data.childRunId));
  }
  const answer = await store.requestGateDecision({ runId: run.id, kind: kindOfVerb[verb], payload });
  if (!answer.queued) throw gateRefusal(verb, answer.run, answer.open, answer.ending);
  return { run, gate: approval.data.nodeId };
}

/**
 * Queues the resume of a failed or paused run, when it applies, atomically: refused with the
 * run's status as it is, with the cancel or abandon still to be carried out that will end it, or
 * (409) when its workflow's `on_overlap: refuse` policy has no place free for it.
 */
export async function requestResume(store: Store, runId: string, payload: Record<string, unknown>): Promise<Job> {
  const answer = await store.requestRunContinuation({ runId, kind: 'resume_run', payload, fromStatuses: resumableRunStatuses });
  if (answer.queued) return answer.job;
  if (!answer.run) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
  if (answer.ending) throw endingRefusal('resume', answer.run, answer.ending);
  if (answer.refused) throw concurrencyRefusal(answer.run, answer.refused);
  throw new CairnError('RUN_INVALID_STATE', runErrorText.cannotResume(answer.run.status));
}

/** Finds a workflow by name in a project (the catalog's `getAsync`, or the API's lookup that words load failures). */
export type WorkflowLookup = (name: string, query: { cwd?: string }) => Promise<WorkflowEntry>;

/**
 * The definition a resume with `reload` runs: the workflow's file as it reads now, found as the
 * run request found it. A file that no longer loads throws the lookup's error (400 naming the
 * problems); one that no longer exists throws WORKFLOW_NOT_FOUND saying the reload has nothing
 * to take. A resume without reload runs the run's copy and reads no file.
 */
export async function reloadedDefinition(store: Store, lookup: WorkflowLookup, run: Run): Promise<unknown> {
  const cwd = await runProjectDir(store, run);
  try {
    return (await lookup(run.workflow_name, cwd ? { cwd } : {})).workflow;
  } catch (err) {
    if (err instanceof CairnError && err.code === 'WORKFLOW_NOT_FOUND') {
      throw new CairnError('WORKFLOW_NOT_FOUND', runErrorText.reloadGone(run.workflow_name));
    }
    throw err;
  }
}
