import { z } from 'zod';
import { type RunOverrides } from './run-overrides.js';
import { aliasesSchema, modelSpecSchema, tiersSchema } from '../../models/model-spec.js';

/**
 * `metadata.model_bindings`: the run's own layer of model bindings, resolved once when the run is
 * queued (contract run rules 2–4) and reused unchanged on resume. It holds no secret: `config.env`
 * never reaches it. The explicit `tiers` and `aliases` request fields are the final layer and
 * override only the matching names of `config.tiers` / `config.aliases`; `source` says which
 * field each binding came from (redacted attribution: a field name, never a value). Install,
 * home and per-user layers are resolved below this one by the engine when a node binds a model.
 */
const bindingSourceSchema = z.enum(['request', 'config']);

export const modelBindingsSchema = z.looseObject({
  assistant: z.string().optional().describe('config.assistant (or defaultAssistant): the run’s default assistant'),
  assistants: z
    .record(z.string(), z.looseObject({ model: z.string().optional() }))
    .optional()
    .describe('config.assistants: per-assistant model defaults for this run'),
  tiers: tiersSchema('model_bindings.tiers').describe('Tier rebindings of this run, config.tiers under the request’s tiers'),
  aliases: aliasesSchema('model_bindings.aliases').describe('Alias rebindings of this run, config.aliases under the request’s aliases'),
  source: z
    .record(z.string(), bindingSourceSchema)
    .describe('For each binding (tiers.small, aliases.@fast, assistant ...): request (an explicit field) or config (inline config)'),
});
export type ModelBindings = z.infer<typeof modelBindingsSchema>;
type ModelSpec = z.infer<typeof modelSpecSchema>;

/** The run's binding layer from its overrides, or undefined when the request rebinds nothing. */
export function resolveRunModelBindings(overrides: RunOverrides | undefined): ModelBindings | undefined {
  if (!overrides) return undefined;
  const config = overrides.config ?? {};
  const source: Record<string, 'request' | 'config'> = {};
  const layer = <K extends string>(kind: 'tiers' | 'aliases', fromConfig?: Partial<Record<K, ModelSpec>>, fromRequest?: Partial<Record<K, ModelSpec>>) => {
    const merged: Record<string, ModelSpec> = {};
    for (const [name, spec] of Object.entries(fromConfig ?? {}) as [string, ModelSpec][]) {
      merged[name] = spec;
      source[`${kind}.${name}`] = 'config';
    }
    for (const [name, spec] of Object.entries(fromRequest ?? {}) as [string, ModelSpec][]) {
      merged[name] = spec;
      source[`${kind}.${name}`] = 'request';
    }
    return merged;
  };
  const tiers = layer('tiers', config.tiers, overrides.tiers);
  const aliases = layer('aliases', config.aliases, overrides.aliases);
  const bindings: ModelBindings = { tiers, aliases, source };
  const assistant = config.assistant ?? config.defaultAssistant;
  if (assistant !== undefined) {
    bindings.assistant = assistant;
    source.assistant = 'config';
  }
  if (config.assistants !== undefined) {
    // Only the model: nothing else of an assistant's settings is a binding (nor may be shown back).
    bindings.assistants = Object.fromEntries(
      Object.entries(config.assistants).map(([id, settings]) => [id, settings.model === undefined ? {} : { model: settings.model }]),
    );
    for (const id of Object.keys(config.assistants)) source[`assistants.${id}`] = 'config';
  }
  return Object.keys(source).length > 0 ? bindings : undefined;
}
