import { z } from 'zod';
import { answerTurn } from '../../conversations/chat/answer-turn.js';
import type { ChatAnswer } from '../../conversations/chat/turn-context.js';
import { coerceError } from '../../shared/errors.js';
import type { NewConversationEvent } from '../../store/schemas/event.js';
import type { JobHandler } from './job-handler.js';

const chatTurnPayloadSchema = z.object({ messageId: z.number().int(), text: z.string(), userId: z.string().optional() });

/** The chat events of a turn, on the conversation's stream. */
const lock = (conversationId: string, locked: boolean): NewConversationEvent => ({
  conversation_id: conversationId,
  event_type: 'conversation_lock',
  data: { conversationId, locked },
});

function textEvent(conversationId: string, reply: ChatAnswer): NewConversationEvent {
  const data: Record<string, unknown> = { content: reply.finalChunk ?? reply.content, isComplete: true };
  const category = reply.metadata?.category;
  if (typeof category === 'string') data.category = category;
  return { conversation_id: conversationId, event_type: 'text', data };
}

/**
 * `chat_turn`: answers one message of a conversation. The claim already holds back every later
 * turn of the conversation (one turn at a time, in order), so this handler only answers:
 * `conversation_lock` true, the answer as `text` (persisted as an assistant message unless it is
 * the stale working directory refusal), then `conversation_lock` false. A plain message's answer
 * streams from the default assistant while it comes (its worker thread writes those `text`
 * events); the closing `text` event then carries the end not yet streamed, written with the
 * stored message in one transaction, after a `retract` when the streamed text is withdrawn. A turn that throws is
 * answered with an `error` frame rather than retried: the user sees why, and nothing hangs.
 */
export const chatTurnJob: JobHandler<'chat_turn'> = {
  mode: 'background',
  async handle(job, { store, log, chat }) {
    const platformId = job.conversation_id;
    if (!platformId) return 'ignored: the job names no conversation';
    const conversation = await store.getConversation(platformId);
    if (!conversation) return 'ignored: the conversation is gone';
    const { text, messageId, userId } = chatTurnPayloadSchema.parse(job.payload);
    const turnLog = log.child({ conversationId: platformId, jobId: job.id });
    await store.appendConversationEvents([lock(platformId, true)]);
    let reply: ChatAnswer;
    try {
      if (!chat) throw new Error('this supervisor was started without the chat dependencies (workflow catalog)');
      reply = await answerTurn(
        { store, log: turnLog, catalog: chat.catalog, clock: chat.clock, ...(chat.assistant ? { assistant: chat.assistant } : {}) },
        { conversation, text, messageId, turnId: String(job.id), ...(userId !== undefined ? { userId } : {}) },
      );
    } catch (thrown) {
      const err = coerceError(thrown);
      turnLog.error({ err }, 'chat.turn_failed');
      await store.appendConversationEvents([
        { conversation_id: platformId, event_type: 'error', data: { message: `Failed to process message: ${err.message}` } },
        lock(platformId, false),
      ]);
      return `failed: ${err.message}`;
    }
    const extra = (reply.events ?? []).map((e) => ({ conversation_id: platformId, ...e }));
    const retract: NewConversationEvent[] = reply.retract ? [{ conversation_id: platformId, event_type: 'retract', data: {} }] : [];
    const events = [...retract, ...extra, textEvent(platformId, reply), lock(platformId, false)];
    if (reply.persist) {
      await store.postChatReply({ conversationId: conversation.id, content: reply.content, metadata: reply.metadata ?? {}, events });
    } else {
      await store.appendConversationEvents(events);
    }
    turnLog.debug({ persisted: reply.persist, chars: reply.content.length }, 'chat.turn_answered');
    return 'answered';
  },
};
