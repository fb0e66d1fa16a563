import { cacheActionOfEventType, isInterrupted, liveNodeEventData, statusOfEventType } from '../records/index.js';
import type { RunEvent } from '../store/schemas/event.js';
import { runStatusOfEvent } from '../store/schemas/run-level-events.js';
import type { EventPayload } from './stream-frames.js';

/**
 * Maps a durable run event to the JSON payload of its SSE frame: run-level events that announce a
 * status become `workflow_status`, node lifecycle events `dag_node`, everything else
 * `workflow_event`. A node record sent as `workflow_event` (`node_suspended`, a cache reset or
 * invalidation) carries its public metadata only: never its output, diagnostics or session id.
 * Shared by the API's streams and the CLI, which turns a run's recorded events (the run detail
 * route) into the same frames before it follows the live stream (`cairn run follow`).
 */

type NodeStatus = Extract<EventPayload, { type: 'dag_node' }>['status'];
type RunPayload = Extract<EventPayload, { runId: string }>;
type FrameBase = Pick<RunPayload, 'runId' | 'conversationId' | 'eventType' | 'seq' | 'timestamp'>;

const nodeStatusByEvent: Record<string, NodeStatus> = {
  node_started: 'running',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  node_skipped_prior_success: 'skipped',
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function withOptional<T extends object>(base: T, extra: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) (base as Record<string, unknown>)[key] = value;
  }
  return base;
}

/** The frame payload of one run event. `workflowName` is '' when unknown. */
export function toRunPayload(event: Pick<RunEvent, 'run_id' | 'conversation_id' | 'event_type' | 'seq' | 'created_at' | 'step_name' | 'data'>, workflowName: string): EventPayload {
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
