import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import type { Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { checkWellFormedText } from '../requests/well-formed-text.js';
import { gateErrorText } from '../../runs/run-texts.js';
import { requestGateAnswer } from '../../runs/run-operations.js';
import { gateAnswerBodySchemas, runIdParamsSchema, runOperationResponseSchema } from '../../wire/runs.js';

const operations = [
  { verb: 'approve', field: 'comment', summary: 'Approve the gate a paused run waits at' },
  { verb: 'reject', field: 'reason', summary: 'Reject the gate a paused run waits at' },
] as const;

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
  checkWellFormedText(parsed);
  const body = gateAnswerBodySchemas[op.verb].safeParse(parsed);
  if (!body.success) {
    throw new CairnError('VALIDATION_FAILED', body.error.issues.map((i) => i.message).join('; '));
  }
  return body.data;
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
        const { run, gate } = await requestGateAnswer(store, req.params.runId, op.verb, body);
        req.log.info({ runId: run.id, gate }, `run.${op.verb}_requested`);
        const message =
          op.verb === 'approve'
            ? `Approved gate '${gate}' of workflow ${run.workflow_name}; the run continues.`
            : `Rejected gate '${gate}' of workflow ${run.workflow_name}.`;
        return { success: true as const, message };
      },
    );
  }
};
