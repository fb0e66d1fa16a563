import type { NewRunEvent } from '../../store/schemas/event.js';

/** The scheduler's view of one node of a run it drives. */
export interface NodeState {
  status: 'pending' | 'ready' | 'running' | 'completed' | 'failed' | 'skipped';
  /** Full output of a completed node, for downstream references and conditions. */
  output: string;
  /** Attempts started so far in the current invocation. */
  attempts: number;
  invocation?: { id: string; startedAt: string };
  error?: string;
}

/** Node states rebuilt from a run's event log, plus the events that close interrupted attempts. */
export interface RestoredRun {
  nodes: Map<string, NodeState>;
  events: NewRunEvent[];
}

/** Why a node is skipped: the contract's `skipped.reason` with its typed `cause`. */
export type SkipDecision =
  | { reason: 'trigger_rule'; cause: { kind: 'upstream_failed' | 'upstream_skipped'; origin: string } }
  | { reason: 'when_condition'; cause: { kind: 'condition'; expr: string } }
  | { reason: 'when_condition_parse_error'; cause: { kind: 'condition_parse_error'; expr: string } };
