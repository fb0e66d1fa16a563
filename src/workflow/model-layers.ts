import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CairnError } from '../shared/errors.js';
import { describeIssue } from './issue-text.js';
import { projectFolders } from './locations.js';
import { effortSchema } from './node-blocks.js';
import { parseYamlData, yamlErrorHeadline } from './yaml-data.js';

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

const fileLayerSchema = z.looseObject({
  defaultAssistant: z.string().trim().min(1).optional(),
  assistant: z.string().trim().min(1).optional(),
  assistants: z.record(z.string(), z.looseObject({ model: z.string().trim().min(1).optional() })).optional(),
  tiers: z.record(z.string(), layerSpecSchema).optional(),
  aliases: z.record(z.string(), layerSpecSchema).optional(),
});

/** The model keys of a config file's parsed data; throws CONFIG_INVALID naming the file. */
export function modelLayerOf(data: unknown, file: string): ModelLayer {
  const parsed = fileLayerSchema.safeParse(data ?? {});
  if (!parsed.success) {
    throw new CairnError('CONFIG_INVALID', `${file}: ${parsed.error.issues.map(describeIssue).join('; ')}`);
  }
  const { defaultAssistant, assistant, assistants, tiers, aliases } = parsed.data;
  const layer: ModelLayer = {};
  const chosen = assistant ?? defaultAssistant;
  if (chosen !== undefined) layer.defaultAssistant = chosen;
  if (assistants) {
    layer.assistants = Object.fromEntries(Object.entries(assistants).map(([id, a]) => [id, a.model === undefined ? {} : { model: a.model }]));
  }
  if (tiers) layer.tiers = tiers;
  if (aliases) layer.aliases = aliases;
  return layer;
}

function readYamlFile(path: string): { found: false } | { found: true; data: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { found: false };
  }
  try {
    return { found: true, data: parseYamlData(text) };
  } catch (err) {
    throw new CairnError('CONFIG_INVALID', `${path}: YAML parse error: ${yamlErrorHeadline(err)}; fix the file by hand`);
  }
}

/**
 * The install layer, read now (a PATCH of the file applies to the next run without a restart).
 * `envDefaultAssistant` (CAIRN_DEFAULT_ASSISTANT) wins over the file's `defaultAssistant`, as at start.
 */
export function readInstallModelLayer(configPath: string, envDefaultAssistant?: string): ModelLayer {
  const read = readYamlFile(configPath);
  const layer = read.found ? modelLayerOf(read.data, configPath) : {};
  return envDefaultAssistant ? { ...layer, defaultAssistant: envDefaultAssistant } : layer;
}

/** CAIRN_DEFAULT_ASSISTANT as the settings read it at start, or undefined when it was not set. */
export function envDefaultAssistantOf(providers: { defaultAssistant: string | undefined; defaultAssistantFromEnv?: boolean | undefined }): string | undefined {
  return providers.defaultAssistantFromEnv ? providers.defaultAssistant : undefined;
}

/**
 * The repository layer of the checkout at `cwd`: `.cairn/config.yaml`, else `.archon/config.yaml`
 * (`assistant`, `assistants`, `tiers`, `aliases`). Read-only: Cairn never writes it.
 */
export function readRepositoryModelLayer(cwd: string | undefined | null): ModelLayer | undefined {
  if (!cwd) return undefined;
  for (const folder of projectFolders) {
    const path = join(cwd, folder, 'config.yaml');
    const read = readYamlFile(path);
    if (read.found) return modelLayerOf(read.data, join(folder, 'config.yaml'));
  }
  return undefined;
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
