import type { Logger } from '../../shared/log.js';
import type { Conversation } from '../../store/schemas/conversation.js';
import type { Store } from '../../store/store.js';
import type { WorkflowCatalog } from '../../workflow/catalog.js';

/** What a chat turn may use: the store, the workflow catalog, a clock, the operator log. */
export interface ChatDeps {
  store: Store;
  catalog: WorkflowCatalog;
  clock: () => number;
  log: Logger;
}

/** One turn: the conversation as it was when the turn started, and the user's text. */
export interface ChatTurn {
  conversation: Conversation;
  text: string;
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
}

export const answer = (content: string, extra: Partial<Omit<ChatAnswer, 'content'>> = {}): ChatAnswer => ({
  content,
  persist: true,
  ...extra,
});
