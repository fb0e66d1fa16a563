import { streamPayloadSchema, type StreamPayload } from '../wire/stream-frames.js';
import { toRunPayload } from '../wire/run-event-frame.js';
import type { WorkflowRun } from '../wire/runs.js';
import type { ApiClient } from './api-client.js';
import { followStream } from './follow-stream.js';
import { readRunDetailPages } from './run-detail-pages.js';

/** What a follower does with a run's frames. */
export interface RunFrameHandler {
  /**
   * One frame, in seq order, once: `frame` is undefined when the JSON is not a frame this CLI
   * knows (`json` is what arrived). `recorded` is true for the events that were already there
   * when following began. Return true to stop following.
   */
  frame(frame: StreamPayload | undefined, json: unknown, recorded: boolean): boolean;
  /** Before the recorded events: the run as their first page shows it. */
  recordedStart?(run: WorkflowRun): void;
  /** After the recorded events: the run as the last page showed it. Return true to stop following. */
  recordedEnd?(run: WorkflowRun): boolean | Promise<boolean>;
  onReconnect?(info: { lastEventId: string; attempt: number; error: unknown }): void;
}

export interface FollowRunEventsOptions {
  client: ApiClient;
  runId: string;
  signal: AbortSignal;
  handler: RunFrameHandler;
  /**
   * Where the frames start. `recorded`: the run's events so far (`GET /api/workflows/runs/{id}`,
   * every page), then its conversation's live stream resumed after the last of them, so no event
   * is shown twice or missed. `{ conversationId }`: the conversation's stream from its first event
   * (a run the caller just started).
   */
  from: 'recorded' | { conversationId: string };
}

/** Follows one run's events until the handler says stop (or the signal aborts, which throws). */
export async function followRunEvents(opts: FollowRunEventsOptions): Promise<void> {
  const { client, runId, handler } = opts;
  let conversationId: string;
  let afterSeq = 0;
  if (opts.from === 'recorded') {
    let run: WorkflowRun | undefined;
    for await (const page of readRunDetailPages(client, runId)) {
      opts.signal.throwIfAborted();
      if (!run) handler.recordedStart?.(page.body.run);
      run = page.body.run;
      for (const event of page.body.events) {
        afterSeq = Math.max(afterSeq, event.seq);
        // The frame the live stream sent (or would have sent) for this event.
        const frame = toRunPayload(event, run.workflow_name);
        if (handler.frame(frame, frame, true)) return;
      }
    }
    if (!run) throw new Error('readRunDetailPages ended without a page');
    if (await handler.recordedEnd?.(run)) return;
    conversationId = run.conversation_id;
  } else {
    conversationId = opts.from.conversationId;
  }
  await followStream({
    client,
    conversationId,
    afterSeq,
    signal: opts.signal,
    onMessage(message) {
      let json: unknown;
      try {
        json = JSON.parse(message.data);
      } catch {
        return false;
      }
      const parsed = streamPayloadSchema.safeParse(json);
      return handler.frame(parsed.success ? parsed.data : undefined, json, false);
    },
    ...(handler.onReconnect ? { onReconnect: handler.onReconnect } : {}),
  });
}
