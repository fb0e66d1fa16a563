import { z } from 'zod';
import { runEventSchema } from '../../store/schemas/event.js';
import { runSchema, runStatusSchema } from '../../store/schemas/run.js';
import { costScopeSchema } from '../../records/schemas/run-usage.js';

/** Schemas of the run read and cancel routes, shared by validation and `/api/openapi.json`. */

export const RUN_LIST_DEFAULT_LIMIT = 50;
export const RUN_LIST_MAX_LIMIT = 200;

export const runListQuerySchema = z.object({
  // Upstream ignores a status it does not know instead of refusing the request; so do we.
  status: runStatusSchema.optional().catch(undefined).describe('Only runs in this status (an unknown status is ignored)'),
  conversationId: z.string().min(1).optional().describe('Only runs of this conversation'),
  workflow: z.string().min(1).optional().describe('Only runs of this workflow name'),
  limit: z.coerce
    .number()
    .int()
    .optional()
    .catch(undefined)
    .describe(`How many runs, newest first (default ${RUN_LIST_DEFAULT_LIMIT}, clamped to 1..${RUN_LIST_MAX_LIMIT})`),
});

export function clampRunListLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return RUN_LIST_DEFAULT_LIMIT;
  return Math.min(RUN_LIST_MAX_LIMIT, Math.max(1, Math.trunc(limit)));
}

export const runIdParamsSchema = z.object({
  runId: z.string().min(1).max(200).describe('Run id as returned when the run was started'),
});

export const workflowRunSchema = runSchema
  .describe('A workflow run row. config.env values in metadata are redacted.')
  .meta({ id: 'WorkflowRun' });

export const runEventViewSchema = runEventSchema
  .extend({
    cost_scope: costScopeSchema
      .optional()
      .describe(
        'Present when data.cost_usd is a number: own = this node’s spend, total = restates spend of ' +
          'other rows (do not sum totals; use the run’s engine-produced totals).',
      ),
  })
  .meta({ id: 'RunEvent' });
export type RunEventView = z.infer<typeof runEventViewSchema>;

export const runListResponseSchema = z.object({ runs: z.array(workflowRunSchema) });
export const runDetailResponseSchema = z.object({
  run: workflowRunSchema,
  events: z.array(runEventViewSchema).describe('Durable events of the run, ordered by seq'),
});

export const runOperationResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
});
