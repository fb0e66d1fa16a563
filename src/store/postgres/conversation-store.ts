import type { ConversationStore } from '../conversations.js';
import { dispatchStatusOf } from '../rules/chat-turns.js';
import { conversationStatements } from './conversations-sql.js';
import { eventStatements } from './events-sql.js';
import { jobStatements } from './jobs-sql.js';
import { messageStatements } from './messages-sql.js';
import { toIsolationEnvironment } from './rows.js';
import type { PgSession } from './session.js';

/** The placeholder title a conversation gets from its first message (upstream: 60 characters + '...'). */
function titleFrom(message: string): string {
  const line = message.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 60)}...` : line;
}

/** Chat turns are decided one at a time (the queue's state is read and a turn queued in one step). */
const CHAT_TURN_LOCK = 4242002;

/** ConversationStore over the session's pool. */
export function pgConversationStore(session: PgSession): ConversationStore {
  return {
    createConversation: (conversation) =>
      session.write('create a conversation', (q) => conversationStatements(q).insert(conversation, session.now())),
    getConversation: (platformId) => session.read('read a conversation', (q) => conversationStatements(q).get(platformId)),
    listConversations: (query) => session.read('list conversations', (q) => conversationStatements(q).list(query)),
    renameConversation: (platformId, title) =>
      session.write('rename a conversation', (q) => conversationStatements(q).rename(platformId, title, session.now())),
    deleteConversation: (platformId) =>
      session.write('delete a conversation', (q) => conversationStatements(q).softDelete(platformId, session.now())),
    updateConversation: (platformId, patch) =>
      session.write('update a conversation', (q) => conversationStatements(q).update(platformId, patch, session.now())),
    listMessages: (conversationId, limit, cursor) =>
      session.read('list messages', (q) => messageStatements(q).page(conversationId, limit, cursor)),

    addMessage: (conversationId, message) =>
      session.write('add a message', async (q) => {
        const now = session.now();
        await conversationStatements(q).touch(conversationId, now);
        return messageStatements(q).insert(conversationId, message, now);
      }),

    acceptChatMessage: ({ conversation: wanted, message }) =>
      session.write('accept a chat message', async (q) => {
        const conversations = conversationStatements(q);
        const jobs = jobStatements(q);
        const now = session.now();
        await q('SELECT pg_advisory_xact_lock($1)', [CHAT_TURN_LOCK]);
        const existing = await conversations.insert(wanted, now);
        await conversations.titleIfUnset(existing.id, titleFrom(message.content));
        await conversations.touch(existing.id, now);
        const stored = await messageStatements(q).insert(existing.id, message, now);
        const platformId = existing.platform_conversation_id;
        const status = dispatchStatusOf(await jobs.chatTurns(now), platformId);
        const payload = { messageId: stored.id, text: message.content, ...(message.user_id ? { userId: message.user_id } : {}) };
        const job = await jobs.insert('chat_turn', null, payload, now, platformId);
        return { conversation: (await conversations.get(platformId))!, message: stored, job, status };
      }),

    postChatReply: async ({ conversationId, content, metadata, events: chatEvents }) => {
      const { message } = await session.write('post a chat reply', async (q) => {
        const now = session.now();
        await conversationStatements(q).touch(conversationId, now);
        const stored = await messageStatements(q).insert(conversationId, { role: 'assistant', content, metadata: metadata ?? {} }, now);
        await eventStatements(q).appendConversation(chatEvents, now);
        return { message: stored };
      });
      return message;
    },

    getChatTurnQueue: () => session.read('read the chat turn queue', (q) => jobStatements(q).chatTurns(session.now())),

    releaseConversationWorktree: (platformId) =>
      session.write('release a conversation worktree', async (q) => {
        const conversations = conversationStatements(q);
        const now = session.now();
        const conversation = await conversations.get(platformId);
        const envId = conversation?.isolation_env_id;
        if (!conversation || !envId) return undefined;
        const [row] = await q(`UPDATE isolation_environments SET status = 'destroyed', updated_at = $1 WHERE id = $2 RETURNING *`, [now, envId]);
        const environment = row ? toIsolationEnvironment(row) : undefined;
        const cwdInside = environment !== undefined && conversation.cwd?.startsWith(environment.working_path) === true;
        const patch = { isolation_env_id: null, ...(cwdInside ? { cwd: null } : {}) };
        return { conversation: (await conversations.update(platformId, patch, now))!, environment };
      }),
  };
}
