/** The parts of the settings routes' answers the settings page reads (docs/models.md, docs/http-api.md). */

export const tiers = ['small', 'medium', 'large'] as const;
export type Tier = (typeof tiers)[number];

/** A tier or alias value: a string spec, or a provider and model (and an effort). */
export type Preset = string | { provider: string; model: string; effort?: string };

/** `GET /api/config`: the install's model configuration (safe subset, never a key). */
export interface ConfigView {
  assistant: string;
  assistants: Record<string, { model?: string }>;
  tiers: Partial<Record<Tier, Preset>>;
  tierDefaults: Partial<Record<Tier, Preset>>;
  aliases: Record<string, Preset>;
}

/** `GET /api/auth/me/ai-prefs`: the user's own layer, raw. */
export interface AiPrefs {
  tiers?: Partial<Record<Tier, Preset>>;
  aliases?: Record<string, Preset>;
  defaultProvider?: string;
  defaultModel?: string;
}

export interface ProviderInfo {
  id: string;
  displayName: string;
  builtIn: boolean;
}

/** `GET /api/auth/providers`: metadata only, never a secret. */
export interface AuthProviders {
  enabled: boolean;
  connections: { provider: string; kind: 'api_key' | 'oauth'; label: string }[];
  available: string[];
  agents: {
    id: string;
    displayName: string;
    ready: boolean;
    credentials: { vendor: string; displayName: string; connected: boolean; installEnv: boolean; ambientConfigured?: boolean }[];
  }[];
}

export function presetText(preset: Preset | undefined): string {
  if (preset === undefined) return '';
  if (typeof preset === 'string') return preset;
  return `${preset.provider}/${preset.model}${preset.effort ? ` (effort ${preset.effort})` : ''}`;
}
