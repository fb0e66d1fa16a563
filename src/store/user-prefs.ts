import type { AiPrefs, AiPrefsPatch } from './schemas/ai-prefs.js';

export type { AiPrefs, AiPrefsPatch, StoredPreset } from './schemas/ai-prefs.js';

/**
 * Per-user AI preferences, keyed by the identity's user id (any string the X-Service-User
 * header carried: bound as a parameter, never part of a statement).
 */
export interface UserPrefsStore {
  /** The user's stored prefs; `{}` for a user who has none. */
  getAiPrefs(userId: string): Promise<AiPrefs>;
  /** Applies the patch to the user's prefs in one transaction and returns the result. */
  patchAiPrefs(userId: string, patch: AiPrefsPatch): Promise<AiPrefs>;
}
