import { aiPrefsSchema, applyAiPrefsPatch, type AiPrefs } from '../schemas/ai-prefs.js';
import type { UserPrefsStore } from '../user-prefs.js';
import type { PgSession, Query } from './session.js';

/** A user's stored prefs, `{}` for none; `lock` holds the row (and, for none, the user id) until the write commits. */
async function prefsOf(q: Query, userId: string, lock: boolean): Promise<AiPrefs> {
  if (lock) await q('SELECT pg_advisory_xact_lock(hashtext($1))', [`user_ai_prefs:${userId}`]);
  const [row] = await q('SELECT prefs FROM user_ai_prefs WHERE user_id = $1', [userId]);
  return row ? aiPrefsSchema.parse(JSON.parse(row.prefs as string)) : {};
}

/** UserPrefsStore over the session's pool: one JSON row per user. */
export function pgUserPrefsStore(session: PgSession): UserPrefsStore {
  return {
    getAiPrefs: (userId) => session.read('read ai prefs', (q) => prefsOf(q, userId, false)),
    patchAiPrefs: (userId, patch) =>
      session.write('patch ai prefs', async (q) => {
        const next = applyAiPrefsPatch(await prefsOf(q, userId, true), patch);
        await q(
          `INSERT INTO user_ai_prefs (user_id, prefs, updated_at) VALUES ($1, $2, $3)
           ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at`,
          [userId, JSON.stringify(next), session.now()],
        );
        return next;
      }),
  };
}
