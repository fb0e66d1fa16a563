import type Database from 'better-sqlite3';
import { toConversation } from '../rows.js';
import type { Conversation, ConversationListQuery, ConversationPatch, NewConversation } from '../schemas/conversation.js';

type Row = Record<string, unknown>;

/** Statements for `conversations`. Values are always bound, never spliced into the SQL. */
export function conversationStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO conversations (id, platform_type, platform_conversation_id, codebase_id, title,
       hidden, user_id, created_at, updated_at, last_activity_at)
     VALUES (@id, @platform_type, @platform_conversation_id, @codebase_id, @title, @hidden,
       @user_id, @now, @now, @now)
     ON CONFLICT (platform_conversation_id) DO NOTHING`,
  );
  const byPlatformId = db.prepare('SELECT * FROM conversations WHERE platform_conversation_id = ?');
  const list = db.prepare(
    `SELECT * FROM conversations c
     WHERE c.hidden = 0
       AND (@includeDeleted = 1 OR c.deleted_at IS NULL)
       AND (@codebaseId IS NULL OR c.codebase_id = @codebaseId)
     ORDER BY c.last_activity_at DESC, c.created_at DESC, c.id
     LIMIT @limit`,
  );
  const rename = db.prepare('UPDATE conversations SET title = ?, updated_at = ? WHERE platform_conversation_id = ?');
  const softDelete = db.prepare(
    `UPDATE conversations SET deleted_at = COALESCE(deleted_at, @now), updated_at = @now
     WHERE platform_conversation_id = @platformId`,
  );
  const touch = db.prepare('UPDATE conversations SET last_activity_at = ?, updated_at = ? WHERE id = ?');
  const titleIfUnset = db.prepare('UPDATE conversations SET title = ? WHERE id = ? AND title IS NULL');
  // One statement per column keeps every value bound; a patch names at most three.
  const setColumn = {
    codebase_id: db.prepare('UPDATE conversations SET codebase_id = ?, updated_at = ? WHERE platform_conversation_id = ?'),
    cwd: db.prepare('UPDATE conversations SET cwd = ?, updated_at = ? WHERE platform_conversation_id = ?'),
    isolation_env_id: db.prepare('UPDATE conversations SET isolation_env_id = ?, updated_at = ? WHERE platform_conversation_id = ?'),
  };

  const get = (platformId: string): Conversation | undefined => {
    const row = byPlatformId.get(platformId) as Row | undefined;
    return row ? toConversation(row) : undefined;
  };

  return {
    get,
    /** Inserts unless the platform id exists; answers the stored row either way. */
    insert(conversation: NewConversation, now: string): Conversation {
      insert.run({
        ...conversation,
        title: conversation.title ?? null,
        user_id: conversation.user_id ?? null,
        hidden: conversation.hidden ? 1 : 0,
        now,
      });
      return get(conversation.platform_conversation_id)!;
    },
    list(query: ConversationListQuery): Conversation[] {
      const rows = list.all({
        includeDeleted: query.includeDeleted ? 1 : 0,
        codebaseId: query.codebaseId ?? null,
        limit: query.limit,
      });
      return rows.map((row) => toConversation(row as Row));
    },
    rename(platformId: string, title: string, now: string): Conversation | undefined {
      rename.run(title, now, platformId);
      return get(platformId);
    },
    softDelete(platformId: string, now: string): Conversation | undefined {
      softDelete.run({ platformId, now });
      return get(platformId);
    },
    update(platformId: string, patch: ConversationPatch, now: string): Conversation | undefined {
      for (const key of ['codebase_id', 'cwd', 'isolation_env_id'] as const) {
        if (patch[key] !== undefined) setColumn[key].run(patch[key], now, platformId);
      }
      return get(platformId);
    },
    touch(id: string, now: string): void {
      touch.run(now, now, id);
    },
    titleIfUnset(id: string, title: string): void {
      titleIfUnset.run(title, id);
    },
  };
}
