import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import { approvalContextSchema } from '../../store/schemas/approval.js';
import type { GateDecisionJobKind } from '../../store/schemas/job.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { gateAnswerBodySchemas, runIdParamsSchema, runOperationResponseSchema } from '../../wire/runs.js';

/** Upstream's texts: clients match on them. */
export const gateErrorText = {
  notFound: 'Workflow run not found',
  cannot: (verb: 'approve' | 'reject', status: string) => `Cannot ${verb} workflow in '${status}' status`,
  missingContext: 'Workflow run is paused but missing approval context',
  alreadyAnswered: (answer: 'approved' | 'rejected') => `Workflow run was already ${answer} — resume in progress`,
  notJson: (field: 'comment' | 'reason') => `Request body is not valid JSON — send {"${field}": "..."} or no body`,
} as const;

const operations = [
  { verb: 'approve', kind: 'approve_run', field: 'comment', summary: 'Approve the gate a paused run waits at' },
  { verb: 'reject', kind: 'reject_run', field: 'reason', summary: 'Reject the gate a paused run waits at' },
] as const;

const answerOfKind: Record<GateDecisionJobKind, 'approved' | 'rejected'> = { approve_run: 'approved', reject_run: 'rejected' };

/**
 * The body of an answer: none, or a JSON object with an optional string `comment` (approve) or
 * `reason` (reject). Read here rather than by the JSON parser, so that a body that is not JSON
 * gets the answer upstream clients expect instead of the generic one.
 */
function readAnswerBody(raw: unknown, op: (typeof operations)[number]): Record<string, unknown> {
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CairnError('INVALID_JSON', gateErrorText.notJson(op.field));
  }
  const body = gateAnswerBodySchemas[op.verb].safeParse(parsed);
  if (!body.success) {
    throw new CairnError('VALIDATION_FAILED', body.error.issues.map((i) => i.message).join('; '));
  }
  return body.data;
}

/** Why an answer does not apply to the run as it is. */
function refusal(op: (typeof operations)[number], run: Run | undefined, open?: GateDecisionJobKind): CairnError {
  if (!run) return new CairnError('RUN_NOT_FOUND', gateErrorText.notFound);
  if (open) return new CairnError('RUN_INVALID_STATE', gateErrorText.alreadyAnswered(answerOfKind[open]));
  if (run.status !== 'paused') return new CairnError('RUN_INVALID_STATE', gateErrorText.cannot(op.verb, run.status));
  return new CairnError('RUN_INVALID_STATE', gateErrorText.missingContext);
}

/**
 * `POST …/approve` and `…/reject`: the API checks that the answer applies (the run is paused at
 * a gate nobody has answered yet) and queues it, atomically; the supervisor carries it out.
 */
export const runGateRoutes: FastifyPluginAsyncZod<{ store: Store }> = async (app, { store }) => {
  // Any body is read as text here; readAnswerBody decides what it means.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  for (const op of operations) {
    app.post(
      `/api/workflows/runs/:runId/${op.verb}`,
      {
        schema: {
          tags: ['runs'],
          summary: op.summary,
          description:
            `Optional JSON body {"${op.field}": "..."}. Allowed only while the run is paused at a gate that has not ` +
            'been answered; the answer is queued for the supervisor, which carries it out (the answer does not wait ' +
            'for that). Refused with 400 naming why otherwise.',
          params: runIdParamsSchema,
          response: { 200: runOperationResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
        },
      },
      async (req) => {
        const body = readAnswerBody(req.body, op);
        const run = await store.getRun(req.params.runId);
        if (!run || run.status !== 'paused') throw refusal(op, run);
        const approval = approvalContextSchema.safeParse(run.metadata.approval);
        if (!approval.success) throw refusal(op, run);
        if (approval.data.resolved) throw new CairnError('RUN_INVALID_STATE', gateErrorText.alreadyAnswered(approval.data.resolved));
        const answer = await store.requestGateDecision({ runId: run.id, kind: op.kind, payload: body });
        if (!answer.queued) throw refusal(op, answer.run, answer.open);
        req.log.info({ runId: run.id, gate: approval.data.nodeId }, `run.${op.verb}_requested`);
        const gate = approval.data.nodeId;
        const message =
          op.verb === 'approve'
            ? `Approved gate '${gate}' of workflow ${run.workflow_name}; the run continues.`
            : `Rejected gate '${gate}' of workflow ${run.workflow_name}.`;
        return { success: true as const, message };
      },
    );
  }
};
