import { z } from 'zod';
import { costScopeSchema } from '../store/schemas/run-usage.js';
import { runEventSchema } from '../store/schemas/event.js';
import { runSchema, runStatusSchema } from '../store/schemas/run.js';
import { runCursorTextSchema } from './run-cursor.js';

/**
 * The run read and cancel routes (`/api/workflows/runs...`): what the API validates and answers
 * with, what `/api/openapi.json` describes, and what the CLI parses the answers with.
 */

export const RUN_LIST_DEFAULT_LIMIT = 50;
export const RUN_LIST_MAX_LIMIT = 200;

export const runListQuerySchema = z.object({
  // Upstream ignores a status it does not know instead of refusing the request; so do we.
  status: runStatusSchema.optional().catch(undefined).describe('Only runs in this status (an unknown status is ignored)'),
  conversationId: z.string().min(1).optional().describe('Only runs of this conversation'),
  workflow: z.string().min(1).optional().describe('Only runs of this workflow name'),
  codebaseId: z.string().min(1).max(300).optional().describe('Only runs on this codebase (owner/repo)'),
  cursor: runCursorTextSchema
    .optional()
    .describe('The nextCursor of the previous answer: the page after it (stable while runs are being added)'),
  mine: z
    .string()
    .optional()
    .describe('Accepted for upstream clients and ignored: Cairn has no users, every run is yours'),
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

export const workerParamsSchema = z.object({
  platformId: z.string().min(1).max(200).describe('The worker conversation id (the conversationId the run was started with or given)'),
});

/** Events per run-detail answer unless `limit` says otherwise, and the most one answer holds. */
export const RUN_EVENTS_DEFAULT_LIMIT = 500;
export const RUN_EVENTS_MAX_LIMIT = 2000;

const afterSeqText = 'afterSeq must be a non-negative integer: the seq of the last event you have (0 for the first page)';

/** A page's `limit`: a whole number of `things`, at least 1; more than `max` reads `max`. */
function pageLimitSchema(things: string, defaultLimit: number, max: number) {
  const text = `limit must be a whole number of ${things}, at least 1 (above ${max} reads ${max})`;
  return z.coerce
    .number({ error: text })
    .int({ error: text })
    .positive({ error: text })
    .optional()
    .describe(`${things[0]!.toUpperCase()}${things.slice(1)} per answer (default ${defaultLimit}; more than ${max} reads ${max})`);
}

export const runDetailQuerySchema = z.object({
  afterSeq: z.coerce
    .number({ error: afterSeqText })
    .int({ error: afterSeqText })
    .nonnegative({ error: afterSeqText })
    .optional()
    .describe('Only events with a larger seq: pass the previous answer’s nextAfterSeq (default 0, from the first event)'),
  limit: pageLimitSchema('events', RUN_EVENTS_DEFAULT_LIMIT, RUN_EVENTS_MAX_LIMIT),
});
export type RunDetailQuery = z.infer<typeof runDetailQuerySchema>;

export function clampRunEventsLimit(limit: number | undefined): number {
  return Math.min(limit ?? RUN_EVENTS_DEFAULT_LIMIT, RUN_EVENTS_MAX_LIMIT);
}

export const workflowRunSchema = runSchema
  .describe('A workflow run row. config.env values in metadata are redacted.')
  .meta({ id: 'WorkflowRun' });
export type WorkflowRun = z.infer<typeof workflowRunSchema>;

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

export const runListResponseSchema = z.object({
  runs: z.array(workflowRunSchema),
  nextCursor: z
    .string()
    .nullable()
    .describe('Pass as cursor for the next page; null when this page holds the oldest matching runs'),
});
export type RunListResponse = z.infer<typeof runListResponseSchema>;

export const runByWorkerResponseSchema = z.object({ run: workflowRunSchema });

export const runDetailResponseSchema = z.object({
  run: workflowRunSchema,
  events: z.array(runEventViewSchema).describe('Durable events of the run after afterSeq, ordered by seq, at most limit'),
  nextAfterSeq: z
    .number()
    .int()
    .nullable()
    .describe(
      'The seq to pass as afterSeq for the next page; null when these are the run’s newest events ' +
        '(a run still going may write more later)',
    ),
});
export type RunDetailResponse = z.infer<typeof runDetailResponseSchema>;

export const runOperationResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
});
export type RunOperationResponse = z.infer<typeof runOperationResponseSchema>;

/** `POST …/abandon`: the operation's answer plus the contract's two facts about child runs. */
export const runAbandonResponseSchema = runOperationResponseSchema.extend({
  /** Descendant runs (child runs, their children ...) the cascade could not end by the time of the answer. */
  cascadeFailures: z.number().int().nonnegative(),
  /** The paused parent this run's abandonment strands, when it was a child run (null: none). */
  blockedParentRunId: z.string().nullable(),
});
export type RunAbandonResponse = z.infer<typeof runAbandonResponseSchema>;
/** The optional JSON bodies of `…/approve` and `…/reject`. */
export const gateAnswerBodySchemas = {
  approve: z.object({ comment: z.string({ error: 'comment must be a string' }).optional() }, { error: 'Request body must be a JSON object, e.g. {"comment": "..."}' }),
  reject: z.object({ reason: z.string({ error: 'reason must be a string' }).optional() }, { error: 'Request body must be a JSON object, e.g. {"reason": "..."}' }),
} as const;

/** Attempts per `logs` answer unless `limit` says otherwise, and the most one answer holds. */
export const RUN_LOGS_DEFAULT_LIMIT = 10;
export const RUN_LOGS_MAX_LIMIT = 50;
/** The most bytes of a stream one `logs/{seq}/{stream}` answer holds. */
export const RUN_LOG_CHUNK_MAX_BYTES = 256 * 1024;

export const runLogsQuerySchema = runDetailQuerySchema.extend({
  limit: pageLimitSchema('attempts', RUN_LOGS_DEFAULT_LIMIT, RUN_LOGS_MAX_LIMIT),
  node: z.string().min(1).optional().describe('Only attempts of this node (its id or path)'),
});

/** One stream of an attempt as its terminal event stored it. */
export const attemptStreamSchema = z.object({
  text: z.string().describe('The stored text: all of it, or its first 32 KiB when truncated'),
  truncated: z.boolean().describe('The text is not all of the stream: read the rest with logs/{seq}/{stream}'),
  bytes: z.number().int().nonnegative().describe('Bytes the stream produced'),
  spilled: z.boolean().describe('More than the stored text was kept in the run’s artifacts'),
});

export const attemptLogSchema = z.object({
  seq: z.number().int().describe('Seq of the attempt’s terminal event: names it in logs/{seq}/{stream}'),
  path: z.string(),
  attemptId: z.string().nullable(),
  status: z.enum(['completed', 'failed']),
  error: z.string().optional(),
  failureKind: z.string().optional(),
  interrupted: z.literal(true).optional(),
  stdout: attemptStreamSchema.nullable(),
  stderr: attemptStreamSchema.nullable(),
});
export type AttemptLog = z.infer<typeof attemptLogSchema>;

export const runLogsResponseSchema = z.object({
  attempts: z.array(attemptLogSchema).describe('Finished attempts after afterSeq, ordered by seq, at most limit'),
  nextAfterSeq: z.number().int().nullable().describe('Pass as afterSeq for the next page; null at the newest'),
});
export type RunLogsResponse = z.infer<typeof runLogsResponseSchema>;

export const runLogChunkParamsSchema = runIdParamsSchema.extend({
  seq: z.coerce.number().int().positive().describe('The attempt’s seq from the logs answer'),
  stream: z.enum(['stdout', 'stderr']),
});
export const runLogChunkQuerySchema = z.object({
  offset: z.coerce.number().int().nonnegative().optional().describe('Byte offset to read from (default 0)'),
  limit: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Bytes to read (default and most ${RUN_LOG_CHUNK_MAX_BYTES})`),
  align: z
    .enum(['line'], { error: 'align must be line (start the chunk at the first line that begins at or after offset), or be left out' })
    .optional()
    .describe('line: start at the first line that begins at or after offset (when none begins within limit bytes, at the first whole character)'),
});
export const runLogChunkResponseSchema = z.object({
  text: z.string(),
  offset: z.number().int().describe('The byte the text starts at: offset as asked, or with align=line the start of the line found'),
  nextOffset: z.number().int().nullable().describe('Offset of the next chunk; null at the end'),
  totalBytes: z.number().int(),
});
export type RunLogChunkResponse = z.infer<typeof runLogChunkResponseSchema>;

/**
 * `POST /api/workflows/runs/{id}/resume`: no body, or (Cairn extension, only for a run paused by
 * its budget) the raised budget it continues with.
 */
export const runResumeBodySchema = z
  .strictObject(
    {
      budgetUsd: z
        .number({ error: 'budgetUsd must be a number' })
        .positive({ error: 'budgetUsd must be greater than 0' })
        .optional()
        .describe('Cairn extension. The new USD budget of a run paused by its budget (metadata.budget.usd)'),
      reload: z
        .boolean({ error: 'reload must be true or false' })
        .optional()
        .describe(
          'Cairn extension. true: take the workflow file, its command files and scripts as they are on disk now instead of the ' +
            "run's copy (captured when it started); the run records a workflow_reloaded event with what changed",
        ),
    },
    { error: (iss) => (iss.code === 'unrecognized_keys' ? 'Unknown field; the accepted fields are budgetUsd and reload' : 'Request body must be a JSON object') },
  )
  .nullish();
