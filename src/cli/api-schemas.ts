import { z } from 'zod';
import { runStatusSchema } from '../store/schemas/run.js';

/**
 * The parts of the API's responses the CLI reads. Loose on purpose: the server may add fields,
 * and `--json` prints the body as the server sent it, never these parsed views.
 */
export const apiErrorBodySchema = z.object({ error: z.string(), detail: z.string().optional() }).loose();

export const runStartResponseSchema = z
  .object({
    accepted: z.boolean(),
    runId: z.string(),
    conversationId: z.string(),
    status: z.string(),
  })
  .loose();
export type RunStartResponse = z.infer<typeof runStartResponseSchema>;

export const runViewSchema = z
  .object({
    id: z.string(),
    workflow_name: z.string(),
    status: runStatusSchema,
    created_at: z.string(),
    started_at: z.string().nullish(),
    completed_at: z.string().nullish(),
    error: z.string().nullish(),
    working_path: z.string().nullish(),
    user_message: z.string().nullish(),
    conversation_id: z.string().nullish(),
  })
  .loose();
export type RunView = z.infer<typeof runViewSchema>;

export const runListResponseSchema = z.object({ runs: z.array(runViewSchema) }).loose();

export const runEventViewSchema = z
  .object({
    seq: z.number().optional(),
    event_type: z.string(),
    step_name: z.string().nullish(),
    data: z.record(z.string(), z.unknown()).nullish(),
    created_at: z.string(),
  })
  .loose();
export type RunEventView = z.infer<typeof runEventViewSchema>;

export const runDetailResponseSchema = z.object({ run: runViewSchema, events: z.array(runEventViewSchema) }).loose();
export type RunDetailResponse = z.infer<typeof runDetailResponseSchema>;

export const runOperationResponseSchema = z
  .object({ success: z.boolean().optional(), message: z.string().optional() })
  .loose();

/** One SSE frame's JSON (`data:` line). Every workflow frame carries `runId`, `eventType` and `seq`. */
export const streamFrameSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('workflow_status'),
      runId: z.string(),
      status: z.string(),
      workflowName: z.string().optional(),
      error: z.string().nullish(),
      /** Why a run was cancelled (a `cancel:` node, exhausted rejections). */
      reason: z.string().nullish(),
    })
    .loose(),
  z
    .object({
      type: z.literal('dag_node'),
      runId: z.string(),
      nodeId: z.string(),
      status: z.string(),
      duration: z.number().nullish(),
      error: z.string().nullish(),
      reason: z.string().nullish(),
    })
    .loose(),
  z.object({ type: z.literal('workflow_event'), runId: z.string().optional() }).loose(),
  z.object({ type: z.literal('heartbeat') }).loose(),
]);
export type StreamFrame = z.infer<typeof streamFrameSchema>;
