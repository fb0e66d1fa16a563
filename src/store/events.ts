import type { NewConversationEvent, NewRunEvent, RunEvent, StreamEvent } from './schemas/event.js';

/**
 * The durable event log that SSE streams tail by `seq`. Two promises callers rely on:
 * - `seq` values become visible in increasing order (SQLite has a single writer; a PostgreSQL
 *   store must serialise event inserts or hand out `seq` at commit time to keep it), so a reader
 *   that remembers the last `seq` it saw never misses a row and never sees one twice;
 * - a `seq` any reader has seen is never lost and never reused, not even after an OS crash or
 *   power loss: a row becomes visible only once its commit is durable.
 */
export interface EventStore {
  /**
   * Appends in order and resolves with the rows written. An event with `ends_attempt` whose
   * attempt already has its terminal event is left out (one attempt, one terminal record),
   * so the answer can be shorter than the input.
   */
  appendEvents(events: readonly NewRunEvent[]): Promise<RunEvent[]>;
  /** Appends chat events of a conversation (no run), in order, in one transaction. */
  appendConversationEvents(events: readonly NewConversationEvent[]): Promise<StreamEvent[]>;
  listRunEvents(runId: string): Promise<RunEvent[]>;
  /**
   * Events with `seq` greater than `afterSeq`, oldest first (the SSE tailer's read). Filtered by
   * run, only that run's events (narrow them with `isRunEvent`); otherwise chat events of conversations (run_id null) too.
   */
  listEventsAfter(afterSeq: number, limit: number, filter?: EventFilter): Promise<StreamEvent[]>;
  lastEventSeq(): Promise<number>;
}

export interface EventFilter {
  conversationId?: string;
  runId?: string;
}
