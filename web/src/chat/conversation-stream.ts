import { useEffect, useRef, useState } from 'preact/hooks';
import { openResumingStream, type StreamState } from '../resuming-stream.js';
import type { ChatFrame } from './types.js';

export type ConversationStreamState = StreamState;

export interface ConversationStreamHandlers {
  /** The stream opened (first time or again): what was written meanwhile is read again. */
  onOpen(): void;
  onFrame(frame: ChatFrame): void;
}

/**
 * The conversation's own stream, `GET /api/stream/{conversationId}`, open while its page is:
 * the answer's text frames as they come, the turn's lock and unlock, a withdrawal, an error.
 * resuming-stream.ts keeps it whole across dropped connections.
 */
export function useConversationStream(conversationId: string, handlers: ConversationStreamHandlers): ConversationStreamState {
  const [state, setState] = useState<ConversationStreamState>('connecting');
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(
    () =>
      openResumingStream<ChatFrame>(`/api/stream/${encodeURIComponent(conversationId)}`, {
        onOpen: () => current.current.onOpen(),
        onFrame: (frame) => current.current.onFrame(frame),
        onState: setState,
      }),
    [conversationId],
  );
  return state;
}
