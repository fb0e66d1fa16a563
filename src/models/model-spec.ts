import { z } from 'zod';

/**
 * The model-spec language: how a request, a config file or a user's preferences name a model
 * (`claude/sonnet`, `haiku`, `@fast`, `large`, or { provider, model }), and the tiers and
 * @aliases maps built from such specs. The messages name the field, because a 400 is all a
 * client gets. model-binding.ts resolves a spec to a provider and model.
 */

export const tierKeySchema = z.enum(['small', 'medium', 'large']);
export type TierKey = z.infer<typeof tierKeySchema>;

/** A string spec (`claude/sonnet`, `haiku`, `@fast`, `large`) or an explicit provider and model. */
const notASpec = 'must be a model spec: a non-empty string or { provider, model }';

export const modelSpecSchema = z
  .union(
    [
      z.string().trim().min(1, { error: notASpec }),
      z.strictObject({ provider: z.string().trim().min(1), model: z.string().trim().min(1) }, { error: notASpec }),
    ],
    { error: notASpec },
  )
  .meta({
    id: 'ModelSpec',
    description: 'A string spec (assistant/model, vendor/model, model, tier or @alias) or { provider, model }',
  });
export type ModelSpec = z.infer<typeof modelSpecSchema>;

/** Builds a tiers map schema whose messages name `field` (`tiers`, `config.tiers`). */
export function tiersSchema(field: string) {
  return z.strictObject(
    { small: modelSpecSchema.optional(), medium: modelSpecSchema.optional(), large: modelSpecSchema.optional() },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `${field}: unknown tier ${iss.keys.map((k) => `'${k}'`).join(', ')}; tiers are small, medium and large`
          : `${field} must be an object mapping small, medium or large to a model spec`,
    },
  );
}

const reservedAliasWords = new Set<string>(tierKeySchema.options);

/** The upstream's alias-name messages, which its clients show verbatim. */
export function aliasNameProblem(name: string): string | undefined {
  const bare = name.startsWith('@') ? name.slice(1) : name;
  if (reservedAliasWords.has(bare)) {
    return `Alias name '${name}' is reserved (small/medium/large are tier keywords). Use a different name.`;
  }
  if (!name.startsWith('@')) return `Alias name '${name}' must start with '@' (e.g. '@${name}').`;
  if (bare.length === 0) return `Alias name '@' needs a name after the '@' (e.g. '@fast').`;
  return undefined;
}

/** Builds an aliases map schema whose messages name `field` (`aliases`, `config.aliases`). */
export function aliasesSchema(field: string) {
  return z
    .record(z.string(), modelSpecSchema, { error: `${field} must be an object mapping @alias names to a model spec` })
    .superRefine((aliases, ctx) => {
      for (const name of Object.keys(aliases)) {
        const problem = aliasNameProblem(name);
        if (problem) ctx.addIssue({ code: 'custom', path: [name], message: `${field}: ${problem}` });
      }
    });
}
