import { signal } from '@preact/signals';
import type { StreamFrame } from './types.js';

/**
 * The page's one live connection: `GET /api/stream/__dashboard__` (every run's events). Pages
 * subscribe to its frames instead of polling. EventSource reconnects by itself after a dropped
 * connection and sends `Last-Event-ID` (the seq of the last frame), so the server replays exactly
 * the frames missed; when the browser gives up (the server refused the stream, e.g. a 503 at the
 * stream cap) the page opens it again itself, a little later each time, resuming with
 * `?lastEventId=`. `epoch` counts the openings: a page reloads what it shows when it changes,
 * which covers anything written before the stream was open.
 */

export type StreamState = 'connecting' | 'live' | 'reconnecting';

export const streamState = signal<StreamState>('connecting');
export const epoch = signal(0);

type Listener = (frame: StreamFrame) => void;
const listeners = new Set<Listener>();
let lastSeq: number | undefined;
let source: EventSource | undefined;
let retryMs = 500;
const MAX_RETRY_MS = 15_000;

export function onFrame(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function open(): void {
  const url = lastSeq === undefined ? '/api/stream/__dashboard__' : `/api/stream/__dashboard__?lastEventId=${lastSeq}`;
  source = new EventSource(url);
  source.onopen = () => {
    retryMs = 500;
    streamState.value = 'live';
    epoch.value++;
  };
  source.onmessage = (message) => {
    let frame: StreamFrame;
    try {
      frame = JSON.parse(message.data as string) as StreamFrame;
    } catch {
      return;
    }
    if (frame.type === 'heartbeat') return;
    if (typeof frame.seq === 'number') {
      if (lastSeq !== undefined && frame.seq <= lastSeq) return;
      lastSeq = frame.seq;
    }
    for (const listener of listeners) listener(frame);
  };
  source.onerror = () => {
    if (source?.readyState === EventSource.CLOSED) {
      streamState.value = 'reconnecting';
      source.close();
      setTimeout(open, retryMs);
      retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
    } else {
      streamState.value = 'reconnecting';
    }
  };
}

export function startLiveStream(): void {
  if (!source) open();
}
