/**
 * One SSE stream of the API (`/api/stream/...`) that misses nothing across dropped connections.
 * Every frame that stands for an event carries its seq; the first frame of a connection (a
 * heartbeat) carries the stream's position, the seq its events follow. After a drop the page
 * opens the stream again itself, resuming after the last seq it knows (`?lastEventId=`): the
 * last event's, or the position when none came yet. Left to itself, an EventSource that lost its
 * connection before the first event would reconnect with no id and skip what was written
 * meanwhile. A dropped or failed connection (the server restarting) is tried again every
 * RECONNECT_MS, as the browser itself would; a stream the server refuses (a 503 at its cap), a
 * little later each time.
 */

export type StreamState = 'connecting' | 'live' | 'reconnecting';

export interface StreamHandlers<F> {
  /** The stream opened (the first time or again): a page reads again what it shows. */
  onOpen(): void;
  onFrame(frame: F): void;
  onState(state: StreamState): void;
}

interface Frame {
  type?: unknown;
  seq?: unknown;
  position?: unknown;
}

const RECONNECT_MS = 250;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 15_000;

/** Opens `path` and keeps it open until the returned function is called. */
export function openResumingStream<F extends Frame>(path: string, handlers: StreamHandlers<F>): () => void {
  let source: EventSource | undefined;
  let lastSeq: number | undefined;
  let retryMs = FIRST_RETRY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const open = (): void => {
    const current = new EventSource(lastSeq === undefined ? path : `${path}?lastEventId=${lastSeq}`);
    source = current;
    current.onopen = () => {
      retryMs = FIRST_RETRY_MS;
      handlers.onState('live');
      handlers.onOpen();
    };
    current.onmessage = (message) => {
      let frame: F;
      try {
        frame = JSON.parse(message.data as string) as F;
      } catch {
        return;
      }
      if (frame.type === 'heartbeat') {
        if (lastSeq === undefined && typeof frame.position === 'number') lastSeq = frame.position;
        return;
      }
      if (typeof frame.seq === 'number') {
        if (lastSeq !== undefined && frame.seq <= lastSeq) return;
        lastSeq = frame.seq;
      }
      handlers.onFrame(frame);
    };
    current.onerror = () => {
      // CLOSED: the server answered, and refused the stream (a 503 at the stream cap). Otherwise
      // the connection failed or dropped, and the browser would try again itself.
      const refused = current.readyState === EventSource.CLOSED;
      current.close();
      if (closed || source !== current) return;
      handlers.onState('reconnecting');
      const delay = refused ? retryMs : RECONNECT_MS;
      if (refused) retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
      timer = setTimeout(open, delay);
    };
  };

  open();
  return () => {
    closed = true;
    source?.close();
    if (timer) clearTimeout(timer);
  };
}
