import { z } from 'zod';
import { runStatusSchema } from '../store/schemas/run.js';

/**
 * The SSE streams (`/api/stream/{conversationId}`, `/api/stream/__dashboard__`): the resume
 * parameters and the JSON payload of each frame. The API maps durable events to these payloads
 * (`api/sse/frames.ts`); the CLI parses them while it follows a run.
 *
 * Payload types, as the upstream dashboard expects them: `workflow_status` for run status changes
 * (the run-level events of `store/schemas/run-level-events.ts`), `dag_node` for node lifecycle,
 * `workflow_event` for everything else. Every event payload also says which row it came from.
 */

const seqText = (field: string) =>
  z.string().regex(/^\d+$/, { error: `${field} must be a non-negative integer (the seq of the last event received)` });

export const streamResumeHeadersSchema = z.looseObject({
  'last-event-id': seqText('Last-Event-ID')
    .optional()
    .describe(
      'Replay the events after this seq that belong to the stream, then continue live. An id beyond ' +
        'the newest event counts as the newest (the stream continues with the next event written).',
    ),
});

export const streamResumeQuerySchema = z.object({
  lastEventId: seqText('lastEventId')
    .optional()
    .describe('Same as the Last-Event-ID header, for clients that cannot set headers (the header wins)'),
});

/** The run statuses a `workflow_status` frame announces (a run is never announced pending). */
export const frameRunStatusSchema = runStatusSchema.exclude(['pending']);
export const frameNodeStatusSchema = z.enum(['running', 'completed', 'failed', 'skipped']);

const frameBaseShape = {
  runId: z.string(),
  conversationId: z.string(),
  eventType: z.string().describe('The durable event type (workflow_started, node_completed ...)'),
  seq: z.number().int().describe('The event\'s sequence number, also sent as the frame id'),
  timestamp: z.number().describe('When the event was written, ms since the epoch'),
};

export const workflowStatusFrameSchema = z.object({
  type: z.literal('workflow_status'),
  ...frameBaseShape,
  status: frameRunStatusSchema,
  workflowName: z.string(),
  error: z.string().optional(),
  reason: z.string().optional(),
});

export const dagNodeFrameSchema = z.object({
  type: z.literal('dag_node'),
  ...frameBaseShape,
  nodeId: z.string(),
  name: z.string(),
  status: frameNodeStatusSchema,
  duration: z.number().optional().describe('Milliseconds, on completed and failed nodes'),
  error: z.string().optional(),
  reason: z.string().optional().describe('Why a node was skipped'),
  failureKind: z
    .string()
    .optional()
    .describe('On failed nodes: the kind of failure (e.g. exec_failed, timeout, cancelled), from the record'),
  interrupted: z
    .literal(true)
    .optional()
    .describe('On failed nodes: the attempt was cut short by a shutdown and runs again later, it did not fail'),
});

export const workflowEventFrameSchema = z.object({
  type: z.literal('workflow_event'),
  ...frameBaseShape,
  stepName: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});

const chatFrameShape = {
  conversationId: z.string(),
  eventType: z.string().describe('Same as type, for chat frames'),
  seq: frameBaseShape.seq,
  timestamp: frameBaseShape.timestamp,
};

/** A chat turn of the conversation starts (`locked: true`) or ends (`locked: false`). */
export const conversationLockFrameSchema = z.object({
  type: z.literal('conversation_lock'),
  ...chatFrameShape,
  locked: z.boolean(),
});

/**
 * The assistant's answer in a chat turn. A plain message's answer streams in batches
 * (`isComplete: false`), closed by one with `isComplete: true`; the frames' contents joined are
 * the stored message. Other answers are one frame.
 */
export const chatTextFrameSchema = z.object({
  type: z.literal('text'),
  ...chatFrameShape,
  content: z.string(),
  isComplete: z.boolean(),
  category: z.string().optional().describe('workflow_dispatch_status, workflow_result, ...'),
  workflowResult: z.object({ workflowName: z.string(), runId: z.string() }).optional(),
});

/** A chat turn failed; the conversation is unlocked right after. */
export const chatErrorFrameSchema = z.object({ type: z.literal('error'), ...chatFrameShape, message: z.string() });

/** The text streamed so far in this turn is withdrawn (the assistant started a workflow, or failed). */
export const chatRetractFrameSchema = z.object({ type: z.literal('retract'), ...chatFrameShape });

/** A workflow was dispatched from the chat to run in the background on a worker conversation. */
export const workflowDispatchFrameSchema = z.object({
  type: z.literal('workflow_dispatch'),
  ...chatFrameShape,
  workerConversationId: z.string(),
  workflowName: z.string(),
});

/** The JSON in each `data:` line of an event frame (the first frame is a bare heartbeat). */
export const streamPayloadSchema = z
  .discriminatedUnion('type', [
    workflowStatusFrameSchema,
    dagNodeFrameSchema,
    workflowEventFrameSchema,
    conversationLockFrameSchema,
    chatTextFrameSchema,
    chatErrorFrameSchema,
    chatRetractFrameSchema,
    workflowDispatchFrameSchema,
    z.object({
      type: z.literal('heartbeat'),
      timestamp: z.number(),
      position: z
        .number()
        .int()
        .optional()
        .describe('First frame only: the seq the stream’s events follow. Resume after it (`?lastEventId=`) when the connection drops before any event frame'),
    }),
  ])
  .meta({ id: 'StreamFrame' });
export type StreamPayload = z.infer<typeof streamPayloadSchema>;
/** A payload that stands for a durable event (every one but the heartbeat). */
export type EventPayload = Exclude<StreamPayload, { type: 'heartbeat' }>;
