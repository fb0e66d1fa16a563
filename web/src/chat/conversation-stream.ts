import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChatFrame } from './types.js';

export type ConversationStreamState = 'connecting' | 'live' | 'reconnecting';

export interface ConversationStreamHandlers {
  /** The stream opened (first time or again): what was written meanwhile is read again. */
  onOpen(): void;
  onFrame(frame: ChatFrame): void;
}

/**
 * The conversation's own stream, `GET /api/stream/{conversationId}`, open while its page is:
 * the answer's text frames as they come, the turn's lock and unlock, a withdrawal, an error.
 * EventSource reconnects by itself with `Last-Event-ID` (chat frames carry a seq, so none is
 * missed); when the browser gives up (a 503 at the stream cap) the page opens it again a little
 * later each time, from the last frame seen.
 */
export function useConversationStream(conversationId: string, handlers: ConversationStreamHandlers): ConversationStreamState {
  const [state, setState] = useState<ConversationStreamState>('connecting');
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    let source: EventSource | undefined;
    let lastSeq: number | undefined;
    let retryMs = 500;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    const base = `/api/stream/${encodeURIComponent(conversationId)}`;
    const open = () => {
      source = new EventSource(lastSeq === undefined ? base : `${base}?lastEventId=${lastSeq}`);
      source.onopen = () => {
        retryMs = 500;
        setState('live');
        current.current.onOpen();
      };
      source.onmessage = (message) => {
        let frame: ChatFrame;
        try {
          frame = JSON.parse(message.data as string) as ChatFrame;
        } catch {
          return;
        }
        if (typeof frame.seq === 'number') {
          if (lastSeq !== undefined && frame.seq <= lastSeq) return;
          lastSeq = frame.seq;
        }
        current.current.onFrame(frame);
      };
      source.onerror = () => {
        setState('reconnecting');
        if (source?.readyState !== EventSource.CLOSED || closed) return;
        source.close();
        timer = setTimeout(open, retryMs);
        retryMs = Math.min(15_000, retryMs * 2);
      };
    };
    open();
    return () => {
      closed = true;
      source?.close();
      if (timer) clearTimeout(timer);
    };
  }, [conversationId]);
  return state;
}
