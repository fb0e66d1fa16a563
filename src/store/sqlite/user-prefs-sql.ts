import type Database from 'better-sqlite3';
import { aiPrefsSchema, type AiPrefs } from '../schemas/ai-prefs.js';

/** Statements for `user_ai_prefs`: one JSON row per user. */
export function userPrefsStatements(db: Database.Database) {
  const get = db.prepare('SELECT prefs FROM user_ai_prefs WHERE user_id = ?');
  const upsert = db.prepare(
    `INSERT INTO user_ai_prefs (user_id, prefs, updated_at) VALUES (@userId, @prefs, @now)
     ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at`,
  );
  return {
    get(userId: string): AiPrefs {
      const row = get.get(userId) as { prefs: string } | undefined;
      return row ? aiPrefsSchema.parse(JSON.parse(row.prefs)) : {};
    },
    put(userId: string, prefs: AiPrefs, now: string): void {
      upsert.run({ userId, prefs: JSON.stringify(prefs), now });
    },
  };
}
