import { z } from 'zod';
import { effortSchema } from './effort.js';

/**
 * One scope's model settings: the install config (`$CAIRN_HOME/config.yaml`), a repository's
 * `.cairn/config.yaml`, a user's stored preferences, and a run's own layer
 * (`metadata.model_bindings`). model-binding.ts stacks them, the higher scope winning key by key.
 */

/** A tier or alias value: a string spec, or an explicit provider and model (with an optional effort). */
export const layerSpecSchema = z.union([
  z.string().trim().min(1),
  // Unknown keys (upstream's `thinking`) are dropped.
  z.object({ provider: z.string().trim().min(1), model: z.string().trim().min(1), effort: effortSchema.optional() }),
]);
export type LayerSpec = z.infer<typeof layerSpecSchema>;

export interface ModelLayer {
  /** The default assistant of this scope (install `defaultAssistant`, repository `assistant`, the user's default provider). */
  defaultAssistant?: string | undefined;
  /** A model pinned for this scope's default assistant (the user's default model). */
  defaultModel?: string | undefined;
  assistants?: Readonly<Record<string, { model?: string | undefined }>> | undefined;
  tiers?: Readonly<Partial<Record<string, LayerSpec>>> | undefined;
  aliases?: Readonly<Record<string, LayerSpec>> | undefined;
}

/** The scopes, each optional; precedence run > user > repository > install > built-in. */
export interface ModelLayers {
  install?: ModelLayer | undefined;
  repository?: ModelLayer | undefined;
  user?: ModelLayer | undefined;
  run?: ModelLayer | undefined;
  /** Config files that could not be read: AI nodes fail with these instead of binding without them. */
  problems?: readonly string[] | undefined;
}

/** Lowest precedence first. */
export const layerOrder = ['install', 'repository', 'user', 'run'] as const;

/** CAIRN_DEFAULT_ASSISTANT as the settings read it at start, or undefined when it was not set. */
export function envDefaultAssistantOf(providers: { defaultAssistant: string | undefined; defaultAssistantFromEnv?: boolean | undefined }): string | undefined {
  return providers.defaultAssistantFromEnv ? providers.defaultAssistant : undefined;
}

/** A user's stored preferences as a layer: their default provider (and its pinned model), tiers and aliases. */
export function modelLayerOfPrefs(prefs: {
  tiers?: Readonly<Record<string, { provider: string; model: string; effort?: string | undefined }>> | undefined;
  aliases?: Readonly<Record<string, { provider: string; model: string; effort?: string | undefined }>> | undefined;
  defaultProvider?: string | undefined;
  defaultModel?: string | undefined;
}): ModelLayer {
  const spec = (v: { provider: string; model: string; effort?: string | undefined }): LayerSpec => {
    const effort = effortSchema.safeParse(v.effort);
    return { provider: v.provider, model: v.model, ...(effort.success && effort.data !== undefined ? { effort: effort.data } : {}) };
  };
  const map = (m: Readonly<Record<string, { provider: string; model: string; effort?: string | undefined }>> | undefined) =>
    m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, spec(v)])) : undefined;
  return {
    ...(prefs.defaultProvider !== undefined ? { defaultAssistant: prefs.defaultProvider } : {}),
    ...(prefs.defaultModel !== undefined ? { defaultModel: prefs.defaultModel } : {}),
    ...(prefs.tiers ? { tiers: map(prefs.tiers) } : {}),
    ...(prefs.aliases ? { aliases: map(prefs.aliases) } : {}),
  };
}

/** A run's own layer (`metadata.model_bindings`, fixed when it was queued) as a layer. */
export function modelLayerOfRunBindings(bindings: {
  assistant?: string | undefined;
  assistants?: Readonly<Record<string, { model?: string | undefined }>> | undefined;
  tiers?: Readonly<Partial<Record<string, LayerSpec>>> | undefined;
  aliases?: Readonly<Record<string, LayerSpec>> | undefined;
} | undefined): ModelLayer | undefined {
  if (!bindings) return undefined;
  return {
    ...(bindings.assistant !== undefined ? { defaultAssistant: bindings.assistant } : {}),
    ...(bindings.assistants ? { assistants: bindings.assistants } : {}),
    ...(bindings.tiers ? { tiers: bindings.tiers } : {}),
    ...(bindings.aliases ? { aliases: bindings.aliases } : {}),
  };
}
