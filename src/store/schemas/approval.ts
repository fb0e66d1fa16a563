import { z } from 'zod';
import type { NewRunEvent } from './event.js';

/**
 * What a paused run waits for: the gate (an `approval:` node, or an interactive loop between
 * iterations) it stopped at. Kept in the run's `metadata.approval` while the run is paused, and
 * read by the API (to say whether approve/reject applies) and by the job that carries out the
 * answer. `resolved` is set in the transaction that answers it.
 */
export const approvalContextSchema = z.looseObject({
  type: z.enum(['approval', 'interactive_loop', 'child_workflow']),
  /** The node's path in the run. */
  nodeId: z.string(),
  message: z.string(),
  captureResponse: z.boolean().optional(),
  /** The gate re-runs its `on_reject` body on a reject, at most this many times in all. */
  onRejectMaxAttempts: z.number().int().positive().optional(),
  /** Authored decisions (`approval.decisions`): the answer becomes `{decision, text}` output. */
  decisions: z.array(z.looseObject({ id: z.string(), label: z.string().optional() })).optional(),
  /** The interactive loop's iteration that just ended (1-based). */
  iteration: z.number().int().positive().optional(),
  resolved: z.enum(['approved', 'rejected']).optional(),
  /** `child_workflow`: the child run the parent is blocked on (approve or reject that one). */
  childRunId: z.string().optional(),
});
export type ApprovalContext = z.infer<typeof approvalContextSchema>;

/** Per gate (node path): how many times it was rejected and the last reason, for `on_reject` rework. */
export const rejectionsSchema = z.record(
  z.string(),
  z.looseObject({
    count: z.number().int().nonnegative(),
    reason: z.string(),
    /** The gate runs its `on_reject` body before it asks again; cleared when the run pauses at it again. */
    reworkPending: z.boolean().optional(),
  }),
);
export type Rejections = z.infer<typeof rejectionsSchema>;

/** The run an approval event belongs to (the fields of its row the event names). */
type RunRef = Pick<NewRunEvent, 'conversation_id'> & { id: string };

/** The texts recorded when an answer leaves them out (upstream's defaults). */
export const DEFAULT_APPROVE_COMMENT = 'Approved';
export const DEFAULT_REJECT_REASON = 'Rejected';

/** `approval_requested`: a gate was reached; the run pauses once nothing else can run. */
export function approvalRequestedEvent(run: RunRef, context: ApprovalContext): NewRunEvent {
  return {
    run_id: run.id,
    conversation_id: run.conversation_id,
    event_type: 'approval_requested',
    step_name: context.nodeId,
    data: {
      message: context.message,
      type: context.type,
      ...(context.iteration !== undefined ? { iteration: context.iteration } : {}),
      ...(context.decisions ? { decisions: context.decisions } : {}),
    },
  };
}

/** `approval_received`: the answer to a gate, as upstream writes it. */
export function approvalReceivedEvent(
  run: RunRef,
  context: ApprovalContext,
  answer: { decision: 'approved'; comment: string } | { decision: 'rejected'; reason: string },
): NewRunEvent {
  return {
    run_id: run.id,
    conversation_id: run.conversation_id,
    event_type: 'approval_received',
    step_name: context.nodeId,
    data: { ...answer, ...(context.iteration !== undefined ? { iteration: context.iteration } : {}) },
  };
}
