import { z } from 'zod';
import { runTotalsAdditionSchema } from './run-usage.js';

/**
 * A durable workflow event. `seq` increases monotonically in commit order, so a reader that
 * remembers the last `seq` it saw never misses a row and never sees one twice.
 */
export const runEventSchema = z.object({
  seq: z.number().int().positive(),
  run_id: z.string(),
  conversation_id: z.string(),
  event_type: z.string(),
  step_name: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type RunEvent = z.infer<typeof runEventSchema>;

export const newRunEventSchema = runEventSchema.omit({ seq: true, created_at: true }).extend({
  /**
   * Set on an attempt's terminal event (`node_completed` / `node_failed`) to the attempt's id.
   * The store keeps at most one event per such id: a second terminal record of the same attempt
   * (a thread answering after the pool closed the attempt for it) is dropped, not appended.
   */
  ends_attempt: z.string().optional(),
  /**
   * Set on a node event whose record counts toward its run's totals, to the spend it adds (the
   * engine reads it from the record: records/run-totals-fold.ts). The store folds it into the
   * run's `metadata.totals` (and its budget scope's) in the transaction that writes the event,
   * and not at all when the event is left out; it is not stored with the event.
   */
  adds_to_totals: runTotalsAdditionSchema.optional(),
});
export type NewRunEvent = z.infer<typeof newRunEventSchema>;

/**
 * A chat event of a conversation (`conversation_lock`, `text`): in the same log and `seq` order
 * as run events, so the conversation's stream delivers both, but with no run.
 */
export const conversationEventSchema = z.object({
  seq: z.number().int().positive(),
  run_id: z.null(),
  conversation_id: z.string(),
  event_type: z.string(),
  step_name: z.null(),
  data: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
export type ConversationEvent = z.infer<typeof conversationEventSchema>;
export type NewConversationEvent = Pick<ConversationEvent, 'conversation_id' | 'event_type' | 'data'>;

/** Any row of the event log. */
export type StreamEvent = RunEvent | ConversationEvent;

export function isRunEvent(event: StreamEvent): event is RunEvent {
  return event.run_id !== null;
}
