import type { Message, MessageCursor, NewMessage } from '../schemas/conversation.js';
import type { Query } from './session.js';

/** Statements for `messages`: history in id order, paged back with a cursor. */
export function messageStatements(q: Query) {
  return {
    async insert(conversationId: string, message: NewMessage, now: string): Promise<Message> {
      const [row] = await q(
        `INSERT INTO messages (conversation_id, role, content, metadata, user_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [conversationId, message.role, message.content, JSON.stringify(message.metadata ?? {}), message.user_id ?? null, now],
      );
      return row as unknown as Message;
    },
    /** The newest page before the cursor, read newest first, then turned oldest first. */
    async page(conversationId: string, limit: number, cursor?: MessageCursor): Promise<Message[]> {
      const rows = !cursor
        ? await q('SELECT * FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2', [conversationId, limit])
        : 'beforeId' in cursor
          ? await q('SELECT * FROM messages WHERE conversation_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3', [conversationId, cursor.beforeId, limit])
          : await q('SELECT * FROM messages WHERE conversation_id = $1 AND created_at < $2 ORDER BY id DESC LIMIT $3', [conversationId, cursor.beforeTime, limit]);
      return (rows as unknown as Message[]).reverse();
    },
  };
}
