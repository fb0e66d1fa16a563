import { applyAiPrefsPatch } from '../schemas/ai-prefs.js';
import type { UserPrefsStore } from '../user-prefs.js';
import type { SqliteSession } from './session.js';
import { userPrefsStatements } from './user-prefs-sql.js';

/** UserPrefsStore over the session's connection. */
export function sqliteUserPrefsStore(session: SqliteSession): UserPrefsStore {
  const prefs = userPrefsStatements(session.db);
  return {
    getAiPrefs: (userId) => session.read('read ai prefs', () => prefs.get(userId)),
    patchAiPrefs: (userId, patch) =>
      session.write('patch ai prefs', () => {
        const next = applyAiPrefsPatch(prefs.get(userId), patch);
        prefs.put(userId, next, session.now());
        return next;
      }),
  };
}
