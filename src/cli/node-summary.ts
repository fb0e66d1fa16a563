import { isInterrupted } from '../records/interrupted.js';
import type { RunEventView } from '../wire/runs.js';

/**
 * What `cairn run get` shows of a node. A failed attempt is one of three things to a reader:
 * `cancelled` (a user's cancel, `failure_kind: cancelled`), `interrupted` (a server stop or a
 * supervisor's death cut it short, flat key `interrupted: true`; the node runs again when the run
 * continues) or `failed` (the node's own failure).
 */
export const nodeSummaryStatuses = ['queued', 'running', 'suspended', 'completed', 'failed', 'cancelled', 'interrupted', 'skipped', 'cached'] as const;
export type NodeSummaryStatus = (typeof nodeSummaryStatuses)[number];

export interface NodeSummary {
  node: string;
  status: NodeSummaryStatus;
  durationMs?: number;
  error?: string;
  reason?: string;
  /** Attempts before the latest that were interrupted: the node ran again after each. */
  interruptions?: number;
  /** The tool calls of its latest attempt (an AI node's), when it made any. */
  tools?: ToolCallCounts;
}

/** Tool calls an AI node made (`tool_called`), and of their results (`tool_completed`) those that failed or were refused. */
export interface ToolCallCounts {
  calls: number;
  failed: number;
  refused: number;
}

type SummarisedEvent = Pick<RunEventView, 'event_type' | 'step_name' | 'data'>;

const statusByEventType: Record<string, NodeSummaryStatus> = {
  provider_queued: 'queued',
  global_queued: 'queued',
  node_started: 'running',
  node_suspended: 'suspended',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  node_skipped_prior_success: 'cached',
};

/** What a suspended node waits for: a person's answer, or the moment a wait wakes. */
function suspendedReason(data: Record<string, unknown>): string {
  if (data.suspend_point === 'wait') return `waiting until ${text(data.wake_at) ?? 'its moment'}`;
  if (data.suspend_point === 'approval') return 'waiting for approval (cairn run approve|reject)';
  return `waiting (${text(data.suspend_point) ?? 'suspended'})`;
}

/**
 * Run-level events after which no node waits in a line any more (its run stopped or paused: the
 * waiters left the line unrun, or the run ended).
 */
const LINE_LEFT = new Set(['workflow_completed', 'workflow_failed', 'workflow_cancelled', 'workflow_paused']);

/**
 * Which line a waiting node is in and its place there, from its `provider_queued` or
 * `global_queued` event: `provider anthropic, position 2`, `global limit, position 3`.
 */
export function queuedPlace(eventType: string, data: Record<string, unknown>): string {
  const position = typeof data.position === 'number' ? `, position ${data.position}` : '';
  const line = eventType === 'global_queued' ? 'global limit' : `provider ${text(data.provider) ?? 'unknown'}`;
  return `${line}${position}`;
}

/** Where a waiting node stands: `queued (provider anthropic, position 2)`, `queued (global limit, position 3)`. */
export function queuedReason(eventType: string, data: Record<string, unknown>): string {
  return `queued (${queuedPlace(eventType, data)})`;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The status of one node event, telling cancelled and interrupted attempts from failures. */
function statusOf(event: SummarisedEvent): NodeSummaryStatus | undefined {
  const status = statusByEventType[event.event_type];
  if (status !== 'failed') return status;
  if (isInterrupted(event.data)) return 'interrupted';
  return event.data.failure_kind === 'cancelled' ? 'cancelled' : 'failed';
}

/**
 * One line per node from a run's event log, fed a page of events at a time: its latest status,
 * duration, error or skip reason, in the order the nodes first appeared. A node retried or
 * resumed shows its last attempt, and counts the interrupted attempts before it. Only the
 * summaries are kept, never the events.
 */
export function createNodeSummary() {
  const byNode = new Map<string, NodeSummary>();
  // Kept apart from the summaries: a node's tool events come between its start and its end.
  const toolsByNode = new Map<string, ToolCallCounts>();
  // Nodes waiting in a line, with what they showed before (a retry waits again after a failure):
  // when the run stops or pauses they have left it, and show that again (or nothing).
  const beforeQueued = new Map<string, NodeSummary | undefined>();
  return {
    add(events: readonly SummarisedEvent[]): void {
      for (const event of events) {
        if (event.step_name === null && LINE_LEFT.has(event.event_type)) {
          for (const [node, before] of beforeQueued) {
            if (before) byNode.set(node, before);
            else byNode.delete(node);
          }
          beforeQueued.clear();
          continue;
        }
        if (event.step_name && countTool(toolsByNode, event.step_name, event)) continue;
        const status = statusOf(event);
        if (!status || !event.step_name) continue;
        const previous = byNode.get(event.step_name);
        const data = event.data;
        const summary: NodeSummary = { node: event.step_name, status };
        if (typeof data.duration_ms === 'number') summary.durationMs = data.duration_ms;
        const error = text(data.error);
        if (error && (status === 'failed' || status === 'cancelled' || status === 'interrupted')) summary.error = error;
        const reason = text(data.reason);
        if (reason && (status === 'skipped' || status === 'cached')) summary.reason = reason;
        if (status === 'suspended') summary.reason = suspendedReason(data);
        if (status === 'queued') {
          summary.reason = queuedReason(event.event_type, data);
          if (!beforeQueued.has(event.step_name)) beforeQueued.set(event.step_name, previous);
        } else beforeQueued.delete(event.step_name);
        const interruptions = (previous?.interruptions ?? 0) + (previous?.status === 'interrupted' ? 1 : 0);
        if (interruptions > 0) summary.interruptions = interruptions;
        // Map.set on an existing key keeps its position: a re-run node stays where it first appeared.
        byNode.set(event.step_name, summary);
      }
    },
    nodes(): NodeSummary[] {
      return [...byNode.values()].map((summary) => {
        const tools = toolsByNode.get(summary.node);
        return tools && tools.calls + tools.failed + tools.refused > 0 ? { ...summary, tools } : summary;
      });
    },
  };
}

/**
 * Counts a tool event into its node's counts (true), or says it is not one (false). A node's
 * start begins its counts again: they are those of its latest attempt, as its status is.
 */
function countTool(counts: Map<string, ToolCallCounts>, node: string, event: SummarisedEvent): boolean {
  if (event.event_type === 'node_started') {
    counts.delete(node);
    return false;
  }
  if (event.event_type !== 'tool_called' && event.event_type !== 'tool_completed') return false;
  const tally = counts.get(node) ?? { calls: 0, failed: 0, refused: 0 };
  counts.set(node, tally);
  if (event.event_type === 'tool_called') tally.calls += 1;
  else if (event.data.refused === true) tally.refused += 1;
  else if (event.data.is_error === true) tally.failed += 1;
  return true;
}

/** `3 tool calls (1 failed, 1 refused)`: what the TOOLS column of `cairn run get` shows of a node. */
export function describeToolCalls(tools: ToolCallCounts | undefined): string {
  if (!tools) return '';
  const parts = [tools.failed ? `${tools.failed} failed` : '', tools.refused ? `${tools.refused} refused` : ''].filter(Boolean);
  return `${tools.calls} tool call${tools.calls === 1 ? '' : 's'}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** The node summaries of a whole event log at once. */
export function summariseNodes(events: readonly SummarisedEvent[]): NodeSummary[] {
  const summary = createNodeSummary();
  summary.add(events);
  return summary.nodes();
}

/**
 * The DETAIL column of `cairn run get`: the error or skip reason, and for a node that ran again
 * after an interruption, that it did (`ran again after 2 interrupted attempts`).
 */
export function describeNodeDetail(node: NodeSummary): string {
  const detail = node.error ?? node.reason ?? '';
  const count = node.interruptions ?? 0;
  if (count === 0) return detail;
  const again = `ran again after ${count} interrupted attempt${count === 1 ? '' : 's'}`;
  return detail ? `${again}; ${detail}` : again;
}
