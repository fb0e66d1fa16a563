import type Database from 'better-sqlite3';
import type { Message, MessageCursor, NewMessage } from '../schemas/conversation.js';

/** Statements for `messages`: history in id order, paged back with a cursor. */
export function messageStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO messages (conversation_id, role, content, metadata, user_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  // The newest page before the cursor, read newest first, then turned oldest first.
  const page = {
    latest: db.prepare('SELECT * FROM messages WHERE conversation_id = ? ORDER BY id DESC LIMIT ?'),
    beforeId: db.prepare('SELECT * FROM messages WHERE conversation_id = ? AND id < ? ORDER BY id DESC LIMIT ?'),
    beforeTime: db.prepare('SELECT * FROM messages WHERE conversation_id = ? AND created_at < ? ORDER BY id DESC LIMIT ?'),
  };

  return {
    insert(conversationId: string, message: NewMessage, now: string): Message {
      const metadata = JSON.stringify(message.metadata ?? {});
      return insert.get(conversationId, message.role, message.content, metadata, message.user_id ?? null, now) as Message;
    },
    page(conversationId: string, limit: number, cursor?: MessageCursor): Message[] {
      const rows = !cursor
        ? page.latest.all(conversationId, limit)
        : 'beforeId' in cursor
          ? page.beforeId.all(conversationId, cursor.beforeId, limit)
          : page.beforeTime.all(conversationId, cursor.beforeTime, limit);
      return (rows as Message[]).reverse();
    },
  };
}
