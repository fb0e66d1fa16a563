/**
 * The parts of the API's answers the dashboard reads (docs/http-api.md). Kept to the fields used:
 * the server's own schemas live in src/wire, which the page does not bundle.
 */

export type RunStatus = 'pending' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';
export const runStatuses: readonly RunStatus[] = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled'];

export interface Approval {
  type: string;
  nodeId: string;
  message: string;
  resolved?: 'approved' | 'rejected';
  childRunId?: string;
}

export interface Run {
  id: string;
  workflow_name: string;
  status: RunStatus;
  user_message: string;
  error: string | null;
  parent_run_id: string | null;
  codebase_id: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  last_activity_at: string;
  metadata: {
    approval?: Approval;
    total_cost_usd?: number;
    [key: string]: unknown;
  };
}

export interface DashboardRun extends Run {
  current_step_name: string | null;
  current_step_status: string | null;
  total_steps: number;
  agents_completed: number;
  agents_failed: number;
}

export interface DashboardPage {
  runs: DashboardRun[];
  total: number;
  counts: Record<'all' | RunStatus, number>;
}

/** A durable event as run detail returns it. */
export interface RunEvent {
  seq: number;
  event_type: string;
  step_name: string | null;
  data: Record<string, unknown>;
  created_at: string;
}

export interface RunDetail {
  run: Run;
  events: RunEvent[];
  nextAfterSeq: number | null;
}

export interface WorkflowNode {
  id: string;
  depends_on?: string[];
  [kind: string]: unknown;
}

/** One frame of the dashboard stream (`GET /api/stream/__dashboard__`). */
export interface StreamFrame {
  type: 'workflow_status' | 'dag_node' | 'workflow_event' | string;
  runId?: string;
  eventType?: string;
  seq?: number;
  timestamp: number;
  status?: string;
  workflowName?: string;
  nodeId?: string;
  stepName?: string | null;
  error?: string;
  reason?: string;
  duration?: number;
  data?: Record<string, unknown>;
}

export interface AttemptLog {
  seq: number;
  path: string;
  status: 'completed' | 'failed';
  error?: string;
  stdout: { text: string; truncated: boolean; bytes: number } | null;
  stderr: { text: string; truncated: boolean; bytes: number } | null;
}

export interface Health {
  status: string;
  version: string;
  runningWorkflows: number;
  concurrency: {
    limit: number;
    perRunLimit: number;
    active: number;
    queued: number;
    runs: number;
    perProvider: Record<string, { active: number; queued: number; limit?: number }>;
    supervisor: { up: boolean; state: string; id?: string; pid?: number; heartbeatAt?: string };
    queuedTotal: number;
  };
  streams: { open: number; max: number; maxPerClient: number };
}
