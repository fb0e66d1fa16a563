import type { ConversationEvent, StreamEvent } from '../../store/schemas/event.js';
import { runStatusOfEvent } from '../../store/schemas/run-level-events.js';
import { toRunPayload } from '../../wire/run-event-frame.js';
import type { EventPayload } from '../../wire/stream-frames.js';

/**
 * Maps a durable event to the JSON payload of its SSE frame (the payload schema, shared with
 * clients, is in `wire/stream-frames.ts`; a run event's mapping, shared with the CLI, in
 * `wire/run-event-frame.ts`).
 */

/** Event types that need the run's workflow name in their frame. */
export function needsWorkflowName(eventType: string): boolean {
  return runStatusOfEvent(eventType) !== undefined;
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

/** One SSE frame for a durable event: `id:` is the seq, so `Last-Event-ID` can resume after it. */
export function formatEventFrame(payload: EventPayload): string {
  return `id: ${payload.seq}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * How long a browser's EventSource waits before it reconnects after a dropped connection. Without
 * it Chromium waits 3 s; the stream resumes exactly where it stopped (`Last-Event-ID`), so a
 * short wait costs nothing but one request, and a page catches up sooner after a network blip.
 */
export const RECONNECT_AFTER_MS = 250;

/**
 * The data frame sent right after connect (no id: it is not an event and must not move the
 * cursor), with the reconnection delay and the stream's position: the seq its first event frame
 * will follow. A client that loses the connection before any event frame resumes after it
 * (`?lastEventId=<position>`); an EventSource left to itself would reconnect with no id at all,
 * and miss what was written in between.
 */
export function formatHelloFrame(now: number, position: number): string {
  return `retry: ${RECONNECT_AFTER_MS}\ndata: ${JSON.stringify({ type: 'heartbeat', timestamp: now, position })}\n\n`;
}

/** The periodic keep-alive: an SSE comment, ignored by EventSource. */
export const HEARTBEAT_COMMENT = ': heartbeat\n\n';
