import { describeUnknownProvider, isRegisteredProvider, listProviders, type ProviderId } from '../shared/providers/registry.js';
import { layerOrder, type LayerSpec, type ModelLayer, type ModelLayers } from './model-layers.js';
import {
  builtInTierDefaults,
  clampEffort,
  tierFallbackOrder,
  tierKeys,
  type ModelPreset,
  type TierKey,
} from './model-presets.js';
import type { Effort } from './effort.js';

/**
 * Which provider, model and effort an AI node runs with: the one place that decides it.
 *
 * Layers, highest first: the run's own (`metadata.model_bindings`), the user's preferences, the
 * repository's `.cairn/config.yaml`, the install config, then the built-in presets. Each key
 * (`tiers.large`, `aliases.@fast`, `assistants.codex.model`, the default assistant) is taken from
 * the highest layer that sets it.
 *
 * - provider: the node's `provider`, the workflow's `provider`, the default assistant, `claude`;
 * - model: the node's `model`, the workflow's `model` (only when the node runs on the workflow's
 *   provider), `assistants.<provider>.model`, else none (the provider's own default);
 * - a model that is a tier (`small`/`medium`/`large`) or an `@alias` is looked up; the preset's
 *   provider wins over the node's (with a warning); an unset tier borrows from the next one
 *   (large → medium → small, medium → large → small, small → medium → large), built-in presets
 *   being those of the provider the node runs on;
 * - a string spec is `assistant/model`, `vendor/model`, another tier or alias, or a model id
 *   that the node's provider takes as it is;
 * - effort: the node's, else the preset's, clamped to what the provider accepts.
 */

export interface BindingInputs {
  node: { provider?: string | undefined; model?: string | undefined; effort?: Effort | undefined };
  workflow: { provider?: string | undefined; model?: string | undefined };
  layers: ModelLayers;
}

export type ModelBinding =
  | {
      ok: true;
      provider: ProviderId;
      /** The model to ask for; undefined lets the provider choose. */
      model: string | undefined;
      effort?: Effort | undefined;
      /** Where the model came from, for logs and docs. */
      modelSource: 'node' | 'workflow' | 'config' | 'provider_default';
      /** The tier or alias the model was looked up through, when it was. */
      preset?: string | undefined;
      /** Things worth a log line (a node's provider overridden by its preset's). */
      warnings: string[];
    }
  | { ok: false; error: string };

export const DEFAULT_ASSISTANT: ProviderId = 'claude';

/** Providers whose model ids are themselves `vendor/model` (`anthropic/claude-sonnet-4-6`). */
const vendorQualifiedModels = new Set<string>(['pi', 'opencode']);

function layersHighFirst(layers: ModelLayers): ModelLayer[] {
  return [...layerOrder].reverse().map((name) => layers[name]).filter((l): l is ModelLayer => l !== undefined);
}

/** The default assistant: the highest layer that names one, else `claude`. */
export function defaultAssistantOf(layers: ModelLayers): string {
  return layersHighFirst(layers).find((l) => l.defaultAssistant !== undefined)?.defaultAssistant ?? DEFAULT_ASSISTANT;
}

/** Each tier or alias name with its value from the highest layer that sets it. */
export function mergedPresets(layers: ModelLayers, kind: 'tiers' | 'aliases'): Record<string, LayerSpec> {
  const merged: Record<string, LayerSpec> = {};
  for (const name of layerOrder) Object.assign(merged, layers[name]?.[kind] ?? {});
  return merged;
}

/** `assistants.<provider>.model` from the highest layer that sets it (a layer's default model counts for its default assistant). */
function assistantModel(layers: ModelLayers, provider: string): string | undefined {
  for (const layer of layersHighFirst(layers)) {
    if (layer.defaultModel !== undefined && layer.defaultAssistant === provider) return layer.defaultModel;
    const model = layer.assistants?.[provider]?.model;
    if (model !== undefined) return model;
  }
  return undefined;
}

/** The built-in tier presets for `provider` (what an unset tier resolves to there), or undefined. */
export function tierDefaultsFor(provider: string): Readonly<Record<TierKey, ModelPreset>> | undefined {
  return builtInTierDefaults[provider as ProviderId];
}

const isTier = (spec: string): spec is TierKey => (tierKeys as readonly string[]).includes(spec);

type Resolved = { ok: true; preset: ModelPreset; via?: string } | { ok: false; error: string };

/** Resolves a spec (string or object) under `provider`, following tiers and aliases. */
export function resolveSpec(spec: LayerSpec, provider: string, layers: ModelLayers, seen: readonly string[] = []): Resolved {
  if (typeof spec !== 'string') {
    if (!isRegisteredProvider(spec.provider)) return { ok: false, error: describeUnknownProvider(spec.provider) };
    return { ok: true, preset: { provider: spec.provider, model: spec.model, ...(spec.effort !== undefined ? { effort: spec.effort } : {}) } };
  }
  if (isTier(spec) || spec.startsWith('@')) {
    if (seen.includes(spec)) return { ok: false, error: `Model preset '${spec}' refers to itself (${[...seen, spec].join(' → ')})` };
    const found = isTier(spec) ? lookUpTier(spec, provider, layers) : lookUpAlias(spec, layers);
    if (!found.ok) return found;
    const inner = resolveSpec(found.value, provider, layers, [...seen, spec]);
    return inner.ok ? { ok: true, preset: inner.preset, via: seen.length === 0 ? spec : undefined } : inner;
  }
  const slash = spec.indexOf('/');
  if (slash > 0) {
    const prefix = spec.slice(0, slash);
    const rest = spec.slice(slash + 1);
    const vendors = new Map(listProviders().filter((p) => p.transport === 'agent').map((p) => [p.vendor, p.id] as const));
    const isVendor = listProviders().some((p) => p.vendor === prefix);
    if (isVendor && vendorQualifiedModels.has(provider)) return { ok: true, preset: { provider, model: spec } };
    if (rest !== '' && isRegisteredProvider(prefix)) return { ok: true, preset: { provider: prefix, model: rest } };
    const agent = vendors.get(prefix);
    if (rest !== '' && agent !== undefined) return { ok: true, preset: { provider: agent, model: rest } };
  }
  return { ok: true, preset: { provider, model: spec } };
}

function lookUpTier(tier: TierKey, provider: string, layers: ModelLayers): { ok: true; value: LayerSpec } | { ok: false; error: string } {
  const configured = mergedPresets(layers, 'tiers');
  const builtIn = tierDefaultsFor(provider);
  for (const name of tierFallbackOrder[tier]) {
    const value = configured[name] ?? builtIn?.[name];
    if (value !== undefined) return { ok: true, value };
  }
  const defined = Object.keys(configured);
  return {
    ok: false,
    error:
      `Tier '${tier}' has no configured preset and no built-in default for provider '${provider}'. ` +
      `Defined tiers: ${defined.length > 0 ? defined.join(', ') : 'none'}; set tiers.${tier} in config or name a model`,
  };
}

function lookUpAlias(alias: string, layers: ModelLayers): { ok: true; value: LayerSpec } | { ok: false; error: string } {
  const aliases = mergedPresets(layers, 'aliases');
  const value = aliases[alias];
  if (value !== undefined) return { ok: true, value };
  const defined = Object.keys(aliases);
  return { ok: false, error: `Unknown alias '${alias}'. Defined aliases: ${defined.length > 0 ? defined.join(', ') : 'none'}` };
}

export function resolveModelBinding(inputs: BindingInputs): ModelBinding {
  const { node, workflow, layers } = inputs;
  if (layers.problems && layers.problems.length > 0) return { ok: false, error: layers.problems.join('; ') };
  const defaultAssistant = defaultAssistantOf(layers);
  const requested = node.provider ?? workflow.provider ?? defaultAssistant;
  if (!isRegisteredProvider(requested)) return { ok: false, error: describeUnknownProvider(requested) };
  const workflowProvider = workflow.provider ?? defaultAssistant;
  const candidates: [string | undefined, 'node' | 'workflow' | 'config'][] = [
    [node.model, 'node'],
    [workflowProvider === requested ? workflow.model : undefined, 'workflow'],
    [assistantModel(layers, requested), 'config'],
  ];
  const found = candidates.find(([model]) => model !== undefined);
  if (!found) {
    const effort = clampEffort(requested, node.effort);
    return { ok: true, provider: requested, model: undefined, ...(effort ? { effort } : {}), modelSource: 'provider_default', warnings: [] };
  }
  const [spec, modelSource] = found as [string, 'node' | 'workflow' | 'config'];
  const resolved = resolveSpec(spec, requested, layers);
  if (!resolved.ok) return resolved;
  const { preset } = resolved;
  if (!isRegisteredProvider(preset.provider)) return { ok: false, error: describeUnknownProvider(preset.provider) };
  const warnings: string[] = [];
  if (node.provider !== undefined && preset.provider !== node.provider) {
    warnings.push(`provider '${node.provider}' is overridden by '${spec}', which runs on '${preset.provider}'`);
  }
  const effort = clampEffort(preset.provider, node.effort ?? preset.effort);
  return {
    ok: true,
    provider: preset.provider,
    model: preset.model,
    ...(effort ? { effort } : {}),
    modelSource,
    ...(resolved.via !== undefined ? { preset: resolved.via } : {}),
    warnings,
  };
}
