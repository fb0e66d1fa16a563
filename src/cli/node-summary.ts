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
}

type SummarisedEvent = Pick<RunEventView, 'event_type' | 'step_name' | 'data'>;

const statusByEventType: Record<string, NodeSummaryStatus> = {
  provider_queued: 'queued',
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

/** Where a node waiting for its provider's slot stands: `queued (provider anthropic, position 2)`. */
export function queuedReason(data: Record<string, unknown>): string {
  const position = typeof data.position === 'number' ? `, position ${data.position}` : '';
  return `queued (provider ${text(data.provider) ?? 'unknown'}${position})`;
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
  return {
    add(events: readonly SummarisedEvent[]): void {
      for (const event of events) {
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
        if (status === 'queued') summary.reason = queuedReason(data);
        const interruptions = (previous?.interruptions ?? 0) + (previous?.status === 'interrupted' ? 1 : 0);
        if (interruptions > 0) summary.interruptions = interruptions;
        // Map.set on an existing key keeps its position: a re-run node stays where it first appeared.
        byNode.set(event.step_name, summary);
      }
    },
    nodes(): NodeSummary[] {
      return [...byNode.values()];
    },
  };
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
