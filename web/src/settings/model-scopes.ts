import { getJson, sendJson } from '../api.js';
import { userHeaders } from './identity.js';
import type { AiPrefs, ConfigView, Preset, Tier } from './types.js';

/** What the model settings show for one scope. */
export interface ModelView {
  /** The default assistant: the install's always has one; a user's may be unset (the install's then applies). */
  assistant: string | undefined;
  model: string | undefined;
  tiers: Partial<Record<Tier, Preset>>;
  /** What an unset tier falls back to (the install scope says; a user's unset tier falls back to the install's). */
  tierDefaults: Partial<Record<Tier, Preset>> | undefined;
  aliases: Record<string, Preset>;
}

/** One layer of the model configuration, read and written through its routes. */
export interface ModelScope {
  name: 'install' | 'user';
  read(): Promise<ModelView>;
  setDefault(provider: string | null, model: string): Promise<unknown>;
  setTier(tier: Tier, preset: { provider: string; model: string } | null): Promise<unknown>;
  setAlias(name: string, preset: { provider: string; model: string } | null): Promise<unknown>;
}

/** The install's configuration, `$CAIRN_HOME/config.yaml`: `/api/config*`, no identity needed. */
export const installScope: ModelScope = {
  name: 'install',
  async read() {
    const config = await getJson<ConfigView>('/api/config');
    return {
      assistant: config.assistant,
      model: config.assistants[config.assistant]?.model,
      tiers: config.tiers,
      tierDefaults: config.tierDefaults,
      aliases: config.aliases,
    };
  },
  setDefault: (provider, model) =>
    sendJson('PATCH', '/api/config/assistants', {
      ...(provider ? { assistant: provider } : {}),
      ...(provider ? { assistants: { [provider]: { model: model || null } } } : {}),
    }),
  setTier: (tier, preset) => sendJson('PATCH', '/api/config/tiers', { tiers: { [tier]: preset } }),
  setAlias: (name, preset) => sendJson('PATCH', '/api/config/aliases', { aliases: { [name]: preset } }),
};

/** The user's own layer, highest in model resolution: `/api/auth/me/ai-prefs*`, with the user named. */
export const userScope: ModelScope = {
  name: 'user',
  async read() {
    const prefs = await getJson<AiPrefs>('/api/auth/me/ai-prefs', undefined, userHeaders());
    return { assistant: prefs.defaultProvider, model: prefs.defaultModel, tiers: prefs.tiers ?? {}, tierDefaults: undefined, aliases: prefs.aliases ?? {} };
  },
  setDefault: (provider, model) =>
    sendJson('PATCH', '/api/auth/me/ai-prefs/default', provider ? { provider, ...(model ? { model } : {}) } : null, userHeaders()),
  setTier: (tier, preset) => sendJson('PATCH', '/api/auth/me/ai-prefs/tiers', { tiers: { [tier]: preset } }, userHeaders()),
  setAlias: (name, preset) => sendJson('PATCH', '/api/auth/me/ai-prefs/aliases', { aliases: { [name]: preset } }, userHeaders()),
};
