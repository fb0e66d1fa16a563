import { z } from 'zod';
import { attemptEndedEvent } from '../../records/index.js';
import { approvalReceivedEvent, DEFAULT_APPROVE_COMMENT } from '../../store/schemas/approval.js';
import { USER_INPUT_KEY } from '../nodes/loop-history.js';
import { continuePausedRun, findPausedGate } from './gate-answer.js';
import { runIdOf, type JobHandler } from './job-handler.js';

export const approvePayloadSchema = z.object({ comment: z.string().optional() });

/**
 * `approve_run`: answers the gate a paused run waits at. In one transaction the gate's attempt
 * is completed (its output: the comment with `capture_response`, `{decision, text}` JSON with
 * authored decisions, otherwise empty), `approval_received` is written, the gate is marked
 * resolved and the run goes from paused straight to running; then the run is rebuilt from its
 * events and driven on. A client never sees a status in between.
 */
export const approveRunJob: JobHandler<'approve_run'> = {
  mode: 'inline',
  async handle(job, ctx) {
    const gate = await findPausedGate(ctx.store, runIdOf(job));
    if (typeof gate === 'string') return gate;
    const { comment } = approvePayloadSchema.parse(job.payload);
    const { approval } = gate;
    if (approval.type === 'interactive_loop') {
      // The loop's attempt goes on: the comment as given is the next iteration's $LOOP_USER_INPUT.
      const received = approvalReceivedEvent(gate.run, approval, { decision: 'approved', comment: comment ?? DEFAULT_APPROVE_COMMENT });
      return continuePausedRun(gate, ctx, {
        events: [{ ...received, data: { ...received.data, [USER_INPUT_KEY]: comment ?? '' } }],
        metadataPatch: { approval: { resolved: 'approved' } },
      });
    }
    const text = comment ?? '';
    const output = approval.decisions
      ? JSON.stringify({ decision: 'approve', text })
      : approval.captureResponse
        ? text
        : '';
    const durationMs = Math.max(0, Date.now() - Date.parse(gate.attempt.startedAt));
    return continuePausedRun(gate, ctx, {
      events: [
        attemptEndedEvent(gate.attempt, { status: 'completed', output: { text: output }, diagnostics: { approvalDecision: 'approve' } }, durationMs),
        approvalReceivedEvent(gate.run, approval, { decision: 'approved', comment: comment ?? DEFAULT_APPROVE_COMMENT }),
      ],
      metadataPatch: { approval: { resolved: 'approved' } },
    });
  },
};
