import { cacheActionOfEventType, isInterrupted, liveNodeEventData, statusOfEventType } from '../../records/index.js';
import type { ConversationEvent, RunEvent, StreamEvent } from '../../store/schemas/event.js';
import { runStatusOfEvent } from '../../store/schemas/run-level-events.js';
import type { EventPayload } from '../../wire/stream-frames.js';

/**
 * Maps a durable event to the JSON payload of its SSE frame (the payload schema, shared with
 * clients, is in `wire/stream-frames.ts`): run-level events that announce a status become
 * `workflow_status`, node lifecycle events `dag_node`, everything else `workflow_event`. A node
 * record sent as `workflow_event` (`node_suspended`, a cache reset or invalidation) carries its
 * public metadata only: never its output, diagnostics or session id.
 */

type NodeStatus = Extract<EventPayload, { type: 'dag_node' }>['status'];

const nodeStatusByEvent: Record<string, NodeStatus> = {
  node_started: 'running',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  node_skipped_prior_success: 'skipped',
};

type FrameBase = Pick<RunPayload, 'runId' | 'conversationId' | 'eventType' | 'seq' | 'timestamp'>;
type RunPayload = Extract<EventPayload, { runId: string }>;

/** Event types that need the run's workflow name in their frame. */
export function needsWorkflowName(eventType: string): boolean {
  return runStatusOfEvent(eventType) !== undefined;
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

/**
 * A conversation's chat event becomes a frame of its own type (`conversation_lock`, `text`) with
 * its data as fields, the way the upstream chat client reads them.
 */
function toChatPayload(event: ConversationEvent): EventPayload {
  return {
    ...event.data,
    type: event.event_type,
    conversationId: event.conversation_id,
    eventType: event.event_type,
    seq: event.seq,
    timestamp: Date.parse(event.created_at),
  } as unknown as EventPayload;
}

/** Maps one durable event to its frame payload. `workflowName` is '' when unknown. */
export function toStreamPayload(event: StreamEvent, workflowName: string): EventPayload {
  if (event.run_id === null) return toChatPayload(event);
  return toRunPayload(event, workflowName);
}

function toRunPayload(event: RunEvent, workflowName: string): EventPayload {
  const base: FrameBase = {
    runId: event.run_id,
    conversationId: event.conversation_id,
    eventType: event.event_type,
    seq: event.seq,
    timestamp: Date.parse(event.created_at),
  };
  const data = event.data;
  const runStatus = runStatusOfEvent(event.event_type);
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
        failureKind: nodeStatus === 'failed' ? text(data.failure_kind) : undefined,
        interrupted: nodeStatus === 'failed' && isInterrupted(data) ? true : undefined,
      },
    );
  }
  const nodeRecord = event.step_name !== null && (statusOfEventType(event.event_type) ?? cacheActionOfEventType(event.event_type));
  return { type: 'workflow_event', ...base, stepName: event.step_name, data: nodeRecord ? liveNodeEventData(data) : data };
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
