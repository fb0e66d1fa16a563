import type { Conversation, ConversationListQuery, ConversationPatch, NewConversation } from '../schemas/conversation.js';
import { toConversation } from './rows.js';
import type { Query } from './session.js';

/** Statements for `conversations`. Values are always bound, never spliced into the SQL. */
export function conversationStatements(q: Query) {
  const get = async (platformId: string): Promise<Conversation | undefined> => {
    const [row] = await q('SELECT * FROM conversations WHERE platform_conversation_id = $1', [platformId]);
    return row ? toConversation(row) : undefined;
  };
  // One statement per column keeps every value bound; a patch names at most three.
  const columns = { codebase_id: 'codebase_id', cwd: 'cwd', isolation_env_id: 'isolation_env_id' } as const;
  return {
    get,
    /** Inserts unless the platform id exists; answers the stored row either way. */
    async insert(conversation: NewConversation, now: string): Promise<Conversation> {
      await q(
        `INSERT INTO conversations (id, platform_type, platform_conversation_id, codebase_id, title, hidden, user_id,
           created_at, updated_at, last_activity_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8)
         ON CONFLICT (platform_conversation_id) DO NOTHING`,
        [
          conversation.id, conversation.platform_type, conversation.platform_conversation_id, conversation.codebase_id ?? null,
          conversation.title ?? null, conversation.hidden ? 1 : 0, conversation.user_id ?? null, now,
        ],
      );
      return (await get(conversation.platform_conversation_id))!;
    },
    async list(query: ConversationListQuery): Promise<Conversation[]> {
      const rows = await q(
        `SELECT * FROM conversations c
         WHERE c.hidden = 0
           AND ($1 OR c.deleted_at IS NULL)
           AND ($2::text IS NULL OR c.codebase_id = $2)
         ORDER BY c.last_activity_at DESC, c.created_at DESC, c.id
         LIMIT $3`,
        [query.includeDeleted === true, query.codebaseId ?? null, query.limit],
      );
      return rows.map(toConversation);
    },
    async rename(platformId: string, title: string, now: string): Promise<Conversation | undefined> {
      await q('UPDATE conversations SET title = $1, updated_at = $2 WHERE platform_conversation_id = $3', [title, now, platformId]);
      return get(platformId);
    },
    async softDelete(platformId: string, now: string): Promise<Conversation | undefined> {
      await q(
        'UPDATE conversations SET deleted_at = COALESCE(deleted_at, $1), updated_at = $1 WHERE platform_conversation_id = $2',
        [now, platformId],
      );
      return get(platformId);
    },
    async update(platformId: string, patch: ConversationPatch, now: string): Promise<Conversation | undefined> {
      for (const key of Object.keys(columns) as (keyof typeof columns)[]) {
        if (patch[key] === undefined) continue;
        await q(`UPDATE conversations SET ${columns[key]} = $1, updated_at = $2 WHERE platform_conversation_id = $3`, [patch[key], now, platformId]);
      }
      return get(platformId);
    },
    async touch(id: string, now: string): Promise<void> {
      await q('UPDATE conversations SET last_activity_at = $1, updated_at = $1 WHERE id = $2', [now, id]);
    },
    async titleIfUnset(id: string, title: string): Promise<void> {
      await q('UPDATE conversations SET title = $1 WHERE id = $2 AND title IS NULL', [title, id]);
    },
  };
}
