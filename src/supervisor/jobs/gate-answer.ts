import { readNodeEvent, type AttemptRef } from '../../records/index.js';
import { approvalContextSchema, type ApprovalContext } from '../../store/schemas/approval.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { JobContext } from './job-handler.js';

/** A paused run, the gate it waits at, and the attempt that waits there (from its `node_suspended` record). */
export interface PausedGate {
  run: Run;
  approval: ApprovalContext;
  attempt: AttemptRef;
}

/**
 * The gate a paused run waits at, or why the answer no longer applies (it was carried out
 * already: this job is handled a second time, or the run moved on).
 */
export async function findPausedGate(store: Store, runId: string): Promise<PausedGate | string> {
  const run = await store.getRun(runId);
  if (!run) return 'ignored: run is gone';
  if (run.status !== 'paused') return `ignored: run is ${run.status}`;
  const parsed = approvalContextSchema.safeParse(run.metadata.approval);
  if (!parsed.success) return 'ignored: the run is paused but missing approval context';
  if (parsed.data.resolved) return `ignored: the gate was already ${parsed.data.resolved}`;
  const approval = parsed.data;
  if (approval.type === 'child_workflow') return `ignored: the run waits on its child run ${approval.childRunId ?? ''}`.trimEnd();
  const events = await store.listRunEvents(runId);
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.step_name !== approval.nodeId || event.event_type !== 'node_suspended') continue;
    const row = readNodeEvent(event);
    if (row?.kind !== 'lifecycle' || !row.record) break;
    const record = row.record;
    return {
      run,
      approval,
      attempt: {
        runId: run.id,
        conversationId: run.conversation_id,
        path: record.path,
        node: record.node,
        invocation: record.invocation,
        attemptId: record.attempt.id,
        startedAt: record.attempt.startedAt,
      },
    };
  }
  return `ignored: no suspended record of gate '${approval.nodeId}' in the run's log`;
}

/**
 * Moves the paused run back to running with `events` (the gate's answer) in one transaction,
 * then drives it again from its event log. Returns the job's result.
 */
export async function continuePausedRun(
  gate: PausedGate,
  ctx: JobContext,
  change: { events: NewRunEvent[]; metadataPatch: Record<string, unknown> },
): Promise<string> {
  const { store, runs, supervisorId } = ctx;
  const run = await store.acquireRun({
    runId: gate.run.id, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: ['paused'], status: 'running',
    metadataPatch: change.metadataPatch,
    events: [...change.events, newRunLevelEvent(gate.run, 'workflow_resumed', {})],
  });
  if (!run) return 'ignored: run changed state';
  return (await runs.resume(run)) ? 'continued' : 'failed to continue';
}

/** Ends the paused run cancelled, with `events` (the gate's answer) in the same transaction. */
export async function cancelPausedRun(
  gate: PausedGate,
  ctx: JobContext,
  change: { events: NewRunEvent[]; metadataPatch: Record<string, unknown>; reason: string },
): Promise<string> {
  const { store, runs, supervisorId } = ctx;
  const run = await store.acquireRun({
    runId: gate.run.id, ownerId: supervisorId, leaseMs: runs.leaseMs, fromStatuses: ['paused'], status: 'cancelled',
    metadataPatch: change.metadataPatch,
    events: [...change.events, newRunLevelEvent(gate.run, 'workflow_cancelled', { reason: change.reason })],
  });
  if (!run) return 'ignored: run changed state';
  await store.releaseRuns(supervisorId, [run.id]);
  return 'cancelled';
}
