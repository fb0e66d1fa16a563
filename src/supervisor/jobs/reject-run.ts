import { z } from 'zod';
import { attemptEndedEvent } from '../../records/index.js';
import { approvalReceivedEvent, DEFAULT_REJECT_REASON } from '../../store/schemas/approval.js';
import { cancelPausedRun, continuePausedRun, findPausedGate } from './gate-answer.js';
import { runIdOf, type JobHandler } from './job-handler.js';

export const rejectPayloadSchema = z.object({ reason: z.string().optional() });

/**
 * `reject_run`: answers the gate a paused run waits at with a rejection, in one transaction:
 * - a gate with authored decisions that include `reject` completes with `{decision: 'reject', text}`
 *   and the run continues (downstream `when:` conditions branch on it);
 * - a gate with `on_reject` that has asked fewer than `max_attempts` times records the reason and
 *   continues the run: the gate runs its rework, then asks again;
 * - otherwise (a plain gate, or the last of its `max_attempts`) the gate's attempt fails as
 *   cancelled and the run ends `cancelled`.
 */
export const rejectRunJob: JobHandler<'reject_run'> = {
  mode: 'inline',
  async handle(job, ctx) {
    const gate = await findPausedGate(ctx.store, runIdOf(job));
    if (typeof gate === 'string') return gate;
    const { reason: given } = rejectPayloadSchema.parse(job.payload);
    const reason = given ?? DEFAULT_REJECT_REASON;
    const { approval, attempt } = gate;
    const received = approvalReceivedEvent(gate.run, approval, { decision: 'rejected', reason });
    const resolved = { approval: { resolved: 'rejected' } };
    const durationMs = Math.max(0, Date.now() - Date.parse(attempt.startedAt));

    if (approval.decisions?.some((d) => d.id === 'reject')) {
      const output = JSON.stringify({ decision: 'reject', text: given ?? '' });
      return continuePausedRun(gate, ctx, {
        events: [
          attemptEndedEvent(attempt, { status: 'completed', output: { text: output }, diagnostics: { approvalDecision: 'reject' } }, durationMs),
          received,
        ],
        metadataPatch: resolved,
      });
    }

    const maxAttempts = approval.onRejectMaxAttempts;
    const count = (gate.run.metadata.rejections?.[approval.nodeId]?.count ?? 0) + 1;
    if (maxAttempts !== undefined && count < maxAttempts) {
      return continuePausedRun(gate, ctx, {
        events: [received],
        metadataPatch: { ...resolved, rejections: { [approval.nodeId]: { count, reason, reworkPending: true } } },
      });
    }

    const cancelReason = maxAttempts !== undefined ? `max_attempts (${maxAttempts}) exhausted` : reason;
    const error = `Rejected: ${reason}`;
    return cancelPausedRun(gate, ctx, {
      events: [
        attemptEndedEvent(
          attempt,
          { status: 'failed', error, failureKind: 'cancelled', retryable: false, diagnostics: { approvalDecision: 'reject' } },
          durationMs,
        ),
        received,
      ],
      metadataPatch: { ...resolved, ...(maxAttempts !== undefined ? { rejections: { [approval.nodeId]: { count, reason } } } : {}) },
      reason: cancelReason,
    });
  },
};
