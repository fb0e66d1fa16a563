import type { RunEventView } from './api-schemas.js';

export interface NodeSummary {
  node: string;
  status: 'running' | 'completed' | 'failed' | 'skipped' | 'cached';
  durationMs?: number;
  error?: string;
  reason?: string;
}

const statusByEventType: Record<string, NodeSummary['status']> = {
  node_started: 'running',
  node_completed: 'completed',
  node_failed: 'failed',
  node_skipped: 'skipped',
  node_skipped_prior_success: 'cached',
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * One line per node from a run's event log: its latest status, duration, error or skip reason,
 * in the order the nodes first appeared. A node retried or resumed shows its last attempt.
 */
export function summariseNodes(events: readonly RunEventView[]): NodeSummary[] {
  const byNode = new Map<string, NodeSummary>();
  for (const event of events) {
    const status = statusByEventType[event.event_type];
    if (!status || !event.step_name) continue;
    const data = event.data ?? {};
    const summary: NodeSummary = { node: event.step_name, status };
    if (typeof data.duration_ms === 'number') summary.durationMs = data.duration_ms;
    const error = text(data.error);
    if (error && status === 'failed') summary.error = error;
    const reason = text(data.reason);
    if (reason && (status === 'skipped' || status === 'cached')) summary.reason = reason;
    // Map.set on an existing key keeps its position: a re-run node stays where it first appeared.
    byNode.set(event.step_name, summary);
  }
  return [...byNode.values()];
}
