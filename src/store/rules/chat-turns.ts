import { MAX_CONCURRENT_CHAT_TURNS, type ChatTurnQueue, type DispatchStatus } from '../schemas/conversation.js';

/**
 * How a chat message accepted now is dispatched (ConversationStore.acceptChatMessage), given the
 * open chat turns: after the conversation's own open turn (one turn per conversation, in order),
 * else after a free slot among the turns being carried out, else at once.
 */
export function dispatchStatusOf(turns: ChatTurnQueue, platformId: string): DispatchStatus {
  if (turns.activeConversationIds.includes(platformId) || (turns.queuedByConversation[platformId] ?? 0) > 0) return 'queued-conversation';
  return turns.activeConversationIds.length >= MAX_CONCURRENT_CHAT_TURNS ? 'queued-capacity' : 'started';
}
