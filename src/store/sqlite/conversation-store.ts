import type { ConversationStore } from '../conversations.js';
import { dispatchStatusOf } from '../rules/chat-turns.js';
import type { IsolationEnvironment } from '../schemas/codebase.js';
import { conversationStatements } from './conversations-sql.js';
import { eventStatements } from './events-sql.js';
import { jobStatements } from './jobs-sql.js';
import { messageStatements } from './messages-sql.js';
import type { SqliteSession } from './session.js';

/** The placeholder title a conversation gets from its first message (upstream: 60 characters + '...'). */
function titleFrom(message: string): string {
  // The message is kept exactly; its title, shown in lists, drops control characters (a NUL too).
  const line = message.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 60)}...` : line;
}

/** ConversationStore over the session's connection. */
export function sqliteConversationStore(session: SqliteSession): ConversationStore {
  const conversations = conversationStatements(session.db);
  const messages = messageStatements(session.db);
  const jobs = jobStatements(session.db);
  const events = eventStatements(session.db);
  const environmentById = session.db.prepare('SELECT * FROM isolation_environments WHERE id = ?');
  const destroyEnvironment = session.db.prepare(
    `UPDATE isolation_environments SET status = 'destroyed', updated_at = ? WHERE id = ?`,
  );

  return {
    createConversation: (conversation) =>
      session.write('create a conversation', () => conversations.insert(conversation, session.now())),

    getConversation: (platformId) => session.read('read a conversation', () => conversations.get(platformId)),

    listConversations: (query) => session.read('list conversations', () => conversations.list(query)),

    renameConversation: (platformId, title) =>
      session.write('rename a conversation', () => conversations.rename(platformId, title, session.now())),

    deleteConversation: (platformId) =>
      session.write('delete a conversation', () => conversations.softDelete(platformId, session.now())),

    updateConversation: (platformId, patch) =>
      session.write('update a conversation', () => conversations.update(platformId, patch, session.now())),

    listMessages: (conversationId, limit, cursor) =>
      session.read('list messages', () => messages.page(conversationId, limit, cursor)),

    addMessage: (conversationId, message) =>
      session.write('add a message', () => {
        const now = session.now();
        conversations.touch(conversationId, now);
        return messages.insert(conversationId, message, now);
      }),

    acceptChatMessage: ({ conversation: wanted, message }) =>
      session.write('accept a chat message', () => {
        const now = session.now();
        const existing = conversations.insert(wanted, now);
        conversations.titleIfUnset(existing.id, titleFrom(message.content));
        conversations.touch(existing.id, now);
        const stored = messages.insert(existing.id, message, now);
        const turns = jobs.chatTurns(now);
        const platformId = existing.platform_conversation_id;
        const status = dispatchStatusOf(turns, platformId);
        const job = jobs.insert('chat_turn', null, { messageId: stored.id, text: message.content, ...(message.user_id ? { userId: message.user_id } : {}) }, now, platformId);
        return { conversation: conversations.get(platformId)!, message: stored, job, status };
      }),

    postChatReply: ({ conversationId, content, metadata, events: chatEvents }) =>
      session.write('post a chat reply', () => {
        const now = session.now();
        conversations.touch(conversationId, now);
        const message = messages.insert(conversationId, { role: 'assistant', content, metadata: metadata ?? {} }, now);
        events.appendConversation(chatEvents, now);
        return message;
      }),

    getChatTurnQueue: () => session.read('read the chat turn queue', () => jobs.chatTurns(session.now())),

    releaseConversationWorktree: (platformId) =>
      session.write('release a conversation worktree', () => {
        const now = session.now();
        const conversation = conversations.get(platformId);
        const envId = conversation?.isolation_env_id;
        if (!conversation || !envId) return undefined;
        destroyEnvironment.run(now, envId);
        const row = environmentById.get(envId) as Record<string, unknown> | undefined;
        const environment = row ? ({ ...row, metadata: JSON.parse(row.metadata as string) } as IsolationEnvironment) : undefined;
        const cwdInside = environment !== undefined && conversation.cwd?.startsWith(environment.working_path) === true;
        const patch = { isolation_env_id: null, ...(cwdInside ? { cwd: null } : {}) };
        return { conversation: conversations.update(platformId, patch, now)!, environment };
      }),
  };
}
