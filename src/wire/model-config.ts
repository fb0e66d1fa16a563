import { z } from 'zod';
import { describeUnknownProvider, isRegisteredProvider } from '../shared/providers/registry.js';
import { aliasNameProblem } from '../models/model-spec.js';
import { effortVocabulary, tierKeys } from '../models/model-presets.js';
import { effortSchema } from '../models/effort.js';

/**
 * Bodies and answers of the model configuration routes (`/api/config*`) and the per-user AI
 * preferences (`/api/auth/me/ai-prefs*`). Every write is checked here, so a 400 names the field:
 * a registered provider, an effort the provider takes, a model id without control characters,
 * alias names that start with `@` and are not tier keywords.
 */

export const MAX_MODEL_ID_LENGTH = 200;
export const MAX_ALIAS_NAME_LENGTH = 64;
const controlCharacters = /[\u0000-\u001f\u007f]/;

function modelIdSchema(field: string) {
  return z
    .string({ error: `${field} must be a non-empty string` })
    .trim()
    .min(1, { error: `${field} must be a non-empty string` })
    .max(MAX_MODEL_ID_LENGTH, { error: `${field} is longer than ${MAX_MODEL_ID_LENGTH} characters` })
    .refine((v) => !controlCharacters.test(v), { error: `${field} must not contain control characters` });
}

function providerIdSchema(field: string) {
  return z
    .string({ error: `${field} must be a provider id` })
    .trim()
    .refine(isRegisteredProvider, { error: (iss) => `${field}: ${describeUnknownProvider(String(iss.input).slice(0, 100))}` });
}

/** A tier or alias preset as written: `{ provider, model, effort? }` (upstream's `thinking` is accepted and dropped). */
export function presetBodySchema(field: string) {
  return z
    .object(
      {
        provider: providerIdSchema(`${field}.provider`),
        model: modelIdSchema(`${field}.model`),
        effort: effortSchema.optional(),
        thinking: z.unknown().optional(),
      },
      { error: `${field} must be { provider, model, effort? } or null` },
    )
    .strict()
    .superRefine((preset, ctx) => {
      if (preset.effort === undefined) return;
      const vocabulary = effortVocabulary[preset.provider as keyof typeof effortVocabulary] ?? [];
      if (!vocabulary.includes(preset.effort)) {
        ctx.addIssue({
          code: 'custom',
          path: ['effort'],
          message:
            vocabulary.length === 0
              ? `${field}.effort: provider '${preset.provider}' takes no effort`
              : `${field}.effort: '${preset.effort}' is not an effort of provider '${preset.provider}' (${vocabulary.join(', ')})`,
        });
      }
    })
    .transform(({ provider, model, effort }) => ({ provider, model, ...(effort !== undefined ? { effort } : {}) }));
}

export const presetViewSchema = z
  .union([z.string(), z.object({ provider: z.string(), model: z.string(), effort: z.string().optional() })])
  .meta({ id: 'ModelPreset', description: 'A string spec (assistant/model, model, tier or @alias) or { provider, model, effort? }' });

export const tiersPatchBodySchema = z.strictObject(
  {
    tiers: z.strictObject(
      Object.fromEntries(tierKeys.map((tier) => [tier, presetBodySchema(`tiers.${tier}`).nullable().optional()])) as Record<
        (typeof tierKeys)[number],
        z.ZodOptional<z.ZodNullable<ReturnType<typeof presetBodySchema>>>
      >,
      {
        error: (iss) =>
          iss.code === 'unrecognized_keys'
            ? `tiers: unknown tier ${iss.keys.map((k) => `'${String(k).slice(0, 100)}'`).join(', ')}; tiers are small, medium and large`
            : 'tiers must be an object mapping small, medium or large to { provider, model } or null',
      },
    ),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field ${iss.keys.map((k) => `'${String(k).slice(0, 100)}'`).join(', ')}; send { tiers }` : 'send { tiers: { ... } }') },
);

/** The alias name checks of every alias write; the message names the alias. */
export function aliasNameIssue(name: string): string | undefined {
  const problem = aliasNameProblem(name.slice(0, MAX_ALIAS_NAME_LENGTH + 1));
  if (problem) return problem;
  if (name.length > MAX_ALIAS_NAME_LENGTH) return `Alias name is longer than ${MAX_ALIAS_NAME_LENGTH} characters.`;
  if (!/^@[A-Za-z0-9._-]+$/.test(name)) return `Alias name '${name.replace(controlCharacters, '?')}' may hold only letters, digits, '.', '_' and '-' after the '@'.`;
  return undefined;
}

export const aliasesPatchBodySchema = z.strictObject(
  {
    aliases: z
      .record(z.string(), z.unknown(), { error: 'aliases must be an object mapping @alias names to { provider, model } or null' })
      .superRefine((aliases, ctx) => {
        for (const [name, value] of Object.entries(aliases)) {
          const problem = aliasNameIssue(name);
          if (problem) {
            ctx.addIssue({ code: 'custom', path: [name], message: `aliases: ${problem}` });
            continue;
          }
          if (value === null) continue;
          const parsed = presetBodySchema(`aliases.${name}`).safeParse(value);
          if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: [name], message: issue.message });
        }
      })
      .transform((aliases) =>
        Object.fromEntries(
          Object.entries(aliases).map(([name, value]) => [name, value === null ? null : presetBodySchema(name).parse(value)]),
        ),
      ),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field ${iss.keys.map((k) => `'${String(k).slice(0, 100)}'`).join(', ')}; send { aliases }` : 'send { aliases: { ... } }') },
);

export const assistantsPatchBodySchema = z
  .strictObject(
    {
      assistant: providerIdSchema('assistant').optional(),
      assistants: z
        .record(z.string(), z.unknown(), { error: 'assistants must be an object keyed by assistant id' })
        .superRefine((assistants, ctx) => {
          for (const [id, value] of Object.entries(assistants)) {
            if (!isRegisteredProvider(id)) {
              ctx.addIssue({ code: 'custom', path: [id], message: `assistants: ${describeUnknownProvider(id.slice(0, 100))}` });
              continue;
            }
            const parsed = z
              .strictObject({ model: modelIdSchema(`assistants.${id}.model`).nullable() }, { error: `assistants.${id} must be { model } (a model id, or null to unset)` })
              .safeParse(value);
            if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: [id], message: issue.message });
          }
        })
        .transform((assistants) => assistants as Record<string, { model: string | null }>)
        .optional(),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `unknown field ${iss.keys.map((k) => `'${String(k).slice(0, 100)}'`).join(', ')}; send { assistant } or { assistants }`
          : 'send { assistant } or { assistants }',
    },
  )
  .refine((body) => body.assistant !== undefined || body.assistants !== undefined, { error: 'send { assistant } or { assistants }' });

export const configResponseSchema = z.object({
  assistant: z.string().describe('The default assistant (CAIRN_DEFAULT_ASSISTANT, else defaultAssistant in config.yaml, else claude)'),
  assistants: z.record(z.string(), z.object({ model: z.string().optional() })).describe('Per-assistant default models (no connection settings)'),
  tiers: z.record(z.string(), presetViewSchema).describe('Tiers configured in the install config'),
  tierDefaults: z.record(z.string(), presetViewSchema).describe('What an unset tier resolves to for the current default assistant (built-in)'),
  aliases: z.record(z.string(), presetViewSchema).describe('Aliases configured in the install config'),
});
export type ConfigView = z.infer<typeof configResponseSchema>;

const storedPresetViewSchema = z.object({ provider: z.string(), model: z.string(), effort: z.string().optional() });

export const aiPrefsResponseSchema = z.object({
  tiers: z.record(z.string(), storedPresetViewSchema).optional(),
  aliases: z.record(z.string(), storedPresetViewSchema).optional(),
  defaultProvider: z.string().optional(),
  defaultModel: z.string().optional(),
});

export const aiPrefsDefaultBodySchema = z
  .union(
    [
      z.strictObject(
        { provider: providerIdSchema('provider').nullable().optional(), model: modelIdSchema('model').nullable().optional() },
        { error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field ${iss.keys.map((k) => `'${String(k).slice(0, 100)}'`).join(', ')}; send { provider, model? } or null` : 'send { provider, model? } or null') },
      ),
      z.null(),
    ],
    { error: 'send { provider, model? } or null' },
  )
  .superRefine((body, ctx) => {
    if (body === null) return;
    if ((body.provider === undefined || body.provider === null) && body.model !== undefined && body.model !== null) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: 'model needs a provider: send { provider, model }' });
    } else if (body.provider === undefined) {
      ctx.addIssue({ code: 'custom', path: ['provider'], message: 'provider is required: send { provider, model? }, or null to clear' });
    }
  });

export const modelInfoSchema = z
  .object({
    id: z.string(),
    displayName: z.string(),
    vendor: z.string(),
    reasoning: z.boolean().describe('Whether the model takes a reasoning effort'),
    contextWindow: z.number().optional(),
    inputUsdPerMTok: z.number().optional().describe('USD per million input tokens'),
    outputUsdPerMTok: z.number().optional().describe('USD per million output tokens'),
    source: z.enum(['provider', 'bundled']).describe('provider: listed by the provider just now; bundled: Cairn’s own catalog'),
  })
  .meta({ id: 'ModelInfo' });
export type ModelInfo = z.infer<typeof modelInfoSchema>;
