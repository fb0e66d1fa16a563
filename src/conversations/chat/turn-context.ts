import type { Logger } from '../../shared/log.js';
import type { Conversation } from '../../store/schemas/conversation.js';
import type { Store } from '../../store/store.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import type { ChatAssistant } from './assistant.js';

/**
 * What a chat turn may use: the store, the workflow catalog, a clock, the operator log, and the
 * default assistant (absent: plain messages get the set-up answer).
 */
export interface ChatDeps {
  store: Store;
  catalog: WorkflowCatalog;
  clock: () => number;
  log: Logger;
  assistant?: ChatAssistant;
}

/** One turn: the conversation as it was when the turn started, and the user's text. */
export interface ChatTurn {
  conversation: Conversation;
  text: string;
  /** The stored user message of the turn (the history sent to the assistant ends before it). */
  messageId?: number;
  /** The turn's job id (names the assistant call). */
  turnId?: string;
  /** The X-Service-User of the message (a run it dispatches records it, and binds with the user's prefs). */
  userId?: string;
}

/**
 * The answer of a turn. `persist: false` (the stale working directory refusal) streams the text
 * but writes no message and changes nothing.
 */
export interface ChatAnswer {
  content: string;
  persist: boolean;
  metadata?: Record<string, unknown>;
  /** Extra chat events streamed before the text (e.g. `workflow_dispatch`). */
  events?: { event_type: string; data: Record<string, unknown> }[];
  /** Emit `retract` first: the text streamed during the turn is withdrawn. */
  retract?: boolean;
  /**
   * The content was streamed already, all but this end: the closing `text` event carries only
   * it, so the turn's `text` frames joined are the stored message.
   */
  finalChunk?: string;
}

export const answer = (content: string, extra: Partial<Omit<ChatAnswer, 'content'>> = {}): ChatAnswer => ({
  content,
  persist: true,
  ...extra,
});
