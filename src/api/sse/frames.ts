import { z } from 'zod';
import type { RunEvent } from '../../store/schemas/event.js';

/**
 * The JSON payload of each SSE frame, mapped from a durable event the way the upstream
 * dashboard expects: `workflow_status` for run status changes, `dag_node` for node lifecycle,
 * `workflow_event` for everything else. Every payload also says which row it came from.
 */

const workflowStatusSchema = z.enum(['running', 'completed', 'failed', 'cancelled', 'paused']);
type WorkflowStatus = z.infer<typeof workflowStatusSchema>;
const nodeStatusSchema = z.enum(['running', 'completed', 'failed', 'skipped']);
type NodeStatus = z.infer<typeof nodeStatusSchema>;

const runStatusByEvent: Record<string, WorkflowStatus> = {
  workflow_started: 'running',
  workflow_resumed: 'running',
  workflow_completed: 'completed',
  workflow_failed: 'failed',
  workflow_cancelled: 'cancelled',
  workflow_paused: 'paused',
};

const nodeStatusByEvent: Record<string, NodeStatus> = {
  node_started: 'running',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  node_skipped_prior_success: 'skipped',
};

const frameBaseShape = {
  runId: z.string(),
  conversationId: z.string(),
  eventType: z.string().describe('The durable event type (workflow_started, node_completed ...)'),
  seq: z.number().int().describe('The event\'s sequence number, also sent as the frame id'),
  timestamp: z.number().describe('When the event was written, ms since the epoch'),
};

/** The JSON in each `data:` line of an event frame (the first frame is a bare heartbeat). */
export const streamPayloadSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('workflow_status'),
      ...frameBaseShape,
      status: workflowStatusSchema,
      workflowName: z.string(),
      error: z.string().optional(),
      reason: z.string().optional(),
    }),
    z.object({
      type: z.literal('dag_node'),
      ...frameBaseShape,
      nodeId: z.string(),
      name: z.string(),
      status: nodeStatusSchema,
      duration: z.number().optional().describe('Milliseconds, on completed and failed nodes'),
      error: z.string().optional(),
      reason: z.string().optional().describe('Why a node was skipped'),
    }),
    z.object({
      type: z.literal('workflow_event'),
      ...frameBaseShape,
      stepName: z.string().nullable(),
      data: z.record(z.string(), z.unknown()),
    }),
    z.object({ type: z.literal('heartbeat'), timestamp: z.number() }),
  ])
  .meta({ id: 'StreamFrame' });
export type StreamPayload = z.infer<typeof streamPayloadSchema>;
type EventPayload = Exclude<StreamPayload, { type: 'heartbeat' }>;
type FrameBase = Pick<EventPayload, 'runId' | 'conversationId' | 'eventType' | 'seq' | 'timestamp'>;

/** Event types that need the run's workflow name in their frame. */
export function needsWorkflowName(eventType: string): boolean {
  return eventType in runStatusByEvent;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function withOptional<T extends object>(base: T, extra: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) (base as Record<string, unknown>)[key] = value;
  }
  return base;
}

/** Maps one durable event to its frame payload. `workflowName` is '' when unknown. */
export function toStreamPayload(event: RunEvent, workflowName: string): EventPayload {
  const base: FrameBase = {
    runId: event.run_id,
    conversationId: event.conversation_id,
    eventType: event.event_type,
    seq: event.seq,
    timestamp: Date.parse(event.created_at),
  };
  const data = event.data;
  const runStatus = runStatusByEvent[event.event_type];
  if (runStatus) {
    return withOptional(
      { type: 'workflow_status' as const, ...base, status: runStatus, workflowName },
      { error: text(data.error), reason: text(data.reason) },
    );
  }
  const nodeStatus = nodeStatusByEvent[event.event_type];
  if (nodeStatus) {
    const nodeId = event.step_name ?? text(data.node_id) ?? '';
    return withOptional(
      { type: 'dag_node' as const, ...base, nodeId, name: nodeId, status: nodeStatus },
      {
        duration: typeof data.duration_ms === 'number' ? data.duration_ms : undefined,
        error: text(data.error),
        reason: text(data.reason),
      },
    );
  }
  return { type: 'workflow_event', ...base, stepName: event.step_name, data };
}

/** One SSE frame for a durable event: `id:` is the seq, so `Last-Event-ID` can resume after it. */
export function formatEventFrame(payload: EventPayload): string {
  return `id: ${payload.seq}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The data frame sent right after connect (no id: it is not an event and must not move the cursor). */
export function formatHelloFrame(now: number): string {
  return `data: ${JSON.stringify({ type: 'heartbeat', timestamp: now })}\n\n`;
}

/** The periodic keep-alive: an SSE comment, ignored by EventSource. */
export const HEARTBEAT_COMMENT = ': heartbeat\n\n';
