import type { RunEvent } from '../types.js';

/**
 * What each node of a run is doing, folded from the run's durable events in seq order: the
 * state the graph colours it by, and its attempts for the node panel. Events of nodes inside a
 * loop group or a fan-out (paths like `group/body` or `fan[2]`) count toward their top-level node.
 */

export type NodeState = 'waiting' | 'queued' | 'running' | 'completed' | 'failed' | 'skipped' | 'cached' | 'suspended' | 'interrupted';

export interface Attempt {
  path: string;
  state: Exclude<NodeState, 'waiting' | 'queued'>;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  error?: string;
  output?: string;
  reason?: string;
  /** The attempt's id (its record's `attempt.id`): what the diff of one attempt is asked by. */
  attemptId?: string;
  /** The seq of the event that ended it. */
  endSeq?: number;
  /** The execution record of its latest event (`data.execution`), as the server stored it. */
  record?: Record<string, unknown>;
}

export interface NodeView {
  id: string;
  state: NodeState;
  /** Why it was skipped, the gate's message, the error: one line for the graph's tooltip and the panel. */
  note?: string;
  attempts: Attempt[];
  /**
   * Where the node waits in line for a slot, until it starts: of its provider (the latest
   * `provider_queued` event) or of the global limit (`global_queued`, `provider` null), each
   * recorded when it starts waiting and as it moves within the first places. `path`: the waiting
   * node's own path (a fan-out's instance node counts toward its top-level node).
   */
  queue?: { provider: string | null; position: number; limit: number | null; path: string };
}

/** Run-level events after which no node waits in a line any more (they leave it, or the run ended). */
const LINE_LEFT = new Set(['workflow_completed', 'workflow_failed', 'workflow_cancelled', 'workflow_paused']);

/** The node a path belongs to: its first segment. */
export function topNodeId(path: string): string {
  const cut = path.search(/[/[]/);
  return cut === -1 ? path : path.slice(0, cut);
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function lastOpen(view: NodeView, path: string): Attempt | undefined {
  for (let i = view.attempts.length - 1; i >= 0; i--) {
    const attempt = view.attempts[i]!;
    if (attempt.path === path && (attempt.state === 'running' || attempt.state === 'suspended')) return attempt;
  }
  return undefined;
}

/** The execution record an event carries, and its attempt's id. */
function recordOf(event: RunEvent): { record: Record<string, unknown>; attemptId: string | undefined } | undefined {
  const record = event.data.execution;
  if (!record || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const attempt = (record as { attempt?: { id?: unknown } }).attempt;
  return { record: record as Record<string, unknown>, attemptId: typeof attempt?.id === 'string' ? attempt.id : undefined };
}

function keepRecord(attempt: Attempt, event: RunEvent): void {
  const found = recordOf(event);
  if (!found) return;
  attempt.record = found.record;
  if (found.attemptId) attempt.attemptId = found.attemptId;
}

function end(view: NodeView, event: RunEvent, state: Attempt['state']): Attempt {
  const path = event.step_name ?? view.id;
  // Its place in line, if one was written after its start, is over too.
  if (view.queue?.path === path) {
    view.queue = undefined;
    view.note = undefined;
  }
  const attempt = lastOpen(view, path) ?? { path, state };
  if (!view.attempts.includes(attempt)) view.attempts.push(attempt);
  attempt.state = state;
  attempt.endedAt = event.created_at;
  attempt.endSeq = event.seq;
  keepRecord(attempt, event);
  const duration = event.data.duration_ms;
  if (typeof duration === 'number') attempt.durationMs = duration;
  const error = text(event.data.error);
  if (error) attempt.error = error;
  const output = text(event.data.node_output);
  if (output !== undefined) attempt.output = output;
  const reason = text(event.data.reason);
  if (reason) attempt.reason = reason;
  return attempt;
}

/** The state of a top-level node from its attempts: any still going wins, then a place in line, else the latest. */
function stateOf(view: NodeView): NodeState {
  if (view.attempts.some((a) => a.state === 'running')) return 'running';
  if (view.attempts.some((a) => a.state === 'suspended')) return 'suspended';
  if (view.queue) return 'queued';
  const last = view.attempts.at(-1);
  return last ? last.state : 'waiting';
}

const approvalNote = (data: Record<string, unknown>): string => {
  const said = text(data.comment) ?? text(data.reason);
  return `${text(data.decision) ?? 'answered'}${said ? `: ${said}` : ''}`;
};

function queueOf(event: RunEvent, path: string): NodeView['queue'] {
  const { provider, position, limit } = event.data;
  if (typeof position !== 'number') return undefined;
  const line = event.event_type === 'global_queued' ? null : typeof provider === 'string' ? provider : undefined;
  if (line === undefined) return undefined;
  return { provider: line, position, limit: typeof limit === 'number' ? limit : null, path };
}

/** `waiting for a slot of anthropic: #3 in line (limit 1)`, `waiting for a global slot: #2 in line (limit 8)`. */
export function queueNote(queue: NonNullable<NodeView['queue']>): string {
  const slot = queue.provider === null ? 'a global slot' : `a slot of ${queue.provider}`;
  return `waiting for ${slot}: #${queue.position} in line${queue.limit !== null ? ` (limit ${queue.limit})` : ''}`;
}

function leaveLine(view: NodeView): void {
  if (!view.queue) return;
  view.queue = undefined;
  view.note = undefined;
  view.state = stateOf(view);
}

export function foldNodeStates(nodeIds: readonly string[], events: readonly RunEvent[]): Map<string, NodeView> {
  const views = new Map<string, NodeView>(nodeIds.map((id) => [id, { id, state: 'waiting', attempts: [] }]));
  for (const event of events) {
    if (event.step_name === null) {
      if (LINE_LEFT.has(event.event_type)) for (const view of views.values()) leaveLine(view);
      continue;
    }
    const id = topNodeId(event.step_name);
    let view = views.get(id);
    if (!view) {
      view = { id, state: 'waiting', attempts: [] };
      views.set(id, view);
    }
    switch (event.event_type) {
      case 'provider_queued':
      case 'global_queued': {
        const queue = queueOf(event, event.step_name);
        if (queue) {
          view.queue = queue;
          view.note = queueNote(queue);
        }
        break;
      }
      case 'node_started': {
        view.queue = undefined;
        const attempt: Attempt = { path: event.step_name, state: 'running', startedAt: event.created_at };
        keepRecord(attempt, event);
        view.attempts.push(attempt);
        view.note = undefined;
        break;
      }
      case 'node_completed':
        end(view, event, 'completed');
        break;
      case 'node_failed': {
        const interrupted = event.data.interrupted === true;
        const attempt = end(view, event, interrupted ? 'interrupted' : 'failed');
        view.note = interrupted ? 'interrupted by a shutdown: it runs again' : attempt.error;
        break;
      }
      case 'node_skipped':
        view.note = end(view, event, 'skipped').reason;
        break;
      case 'node_skipped_prior_success':
        end(view, event, 'cached');
        view.note = 'succeeded in an earlier pass: its output is reused';
        break;
      case 'node_suspended': {
        const attempt = lastOpen(view, event.step_name);
        if (attempt) attempt.state = 'suspended';
        else view.attempts.push({ path: event.step_name, state: 'suspended', startedAt: event.created_at });
        break;
      }
      case 'approval_requested':
        view.note = text(event.data.message);
        break;
      case 'approval_received':
        view.note = approvalNote(event.data);
        break;
      default:
        break;
    }
    view.state = stateOf(view);
  }
  return views;
}
