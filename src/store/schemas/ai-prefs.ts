import { z } from 'zod';

/**
 * A user's AI preferences as stored: the raw personal layer (not merged with config). Tier and
 * alias values are `{ provider, model, effort? }`; the routes validate them before they get here.
 */
export const storedPresetSchema = z.object({
  provider: z.string(),
  model: z.string(),
  effort: z.string().optional(),
});
export type StoredPreset = z.infer<typeof storedPresetSchema>;

export const aiPrefsSchema = z.object({
  tiers: z.record(z.string(), storedPresetSchema).optional(),
  aliases: z.record(z.string(), storedPresetSchema).optional(),
  defaultProvider: z.string().optional(),
  defaultModel: z.string().optional(),
});
export type AiPrefs = z.infer<typeof aiPrefsSchema>;

/** One change to a user's prefs: per-key merges (`null` unsets a key) or the default pin. */
export type AiPrefsPatch =
  | { kind: 'tiers' | 'aliases'; entries: Readonly<Record<string, StoredPreset | null>> }
  | { kind: 'default'; value: { provider: string; model?: string | undefined } | null };

/** Applies a patch to the stored prefs (pure; the store runs it inside the write transaction). */
export function applyAiPrefsPatch(prefs: AiPrefs, patch: AiPrefsPatch): AiPrefs {
  const next: AiPrefs = { ...prefs };
  if (patch.kind === 'default') {
    delete next.defaultProvider;
    delete next.defaultModel;
    if (patch.value !== null) {
      next.defaultProvider = patch.value.provider;
      // An omitted model clears any pin.
      if (patch.value.model !== undefined) next.defaultModel = patch.value.model;
    }
    return next;
  }
  const map: Record<string, StoredPreset> = { ...(prefs[patch.kind] ?? {}) };
  for (const [name, value] of Object.entries(patch.entries)) {
    if (value === null) delete map[name];
    else map[name] = value;
  }
  if (Object.keys(map).length > 0) next[patch.kind] = map;
  else delete next[patch.kind];
  return next;
}
