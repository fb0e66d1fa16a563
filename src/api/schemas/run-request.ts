import { z } from 'zod';
import { aliasesSchema, tiersSchema } from './model-binding.js';

/**
 * `POST /api/workflows/{name}/run`: params, query and body. These schemas validate the request
 * and generate its OpenAPI description; the messages are the ones upstream clients match on.
 */

/** A workflow name is a file-level identity: nothing that could step outside a directory. */
export function isSafeWorkflowName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 200 &&
    !name.startsWith('.') &&
    !name.includes('..') &&
    !/[/\\\0]/.test(name)
  );
}

export const workflowNameParamsSchema = z.object({
  name: z
    .string()
    .refine(isSafeWorkflowName, { error: 'Invalid workflow name' })
    .describe('Workflow name as declared by its `name:` key'),
});

export const runQuerySchema = z.object({
  cwd: z
    .string({ error: 'cwd must be a string' })
    .min(1, { error: 'cwd must be a non-empty path' })
    .optional()
    .describe(
      'Absolute path of an existing directory: the run works there, and project workflows are ' +
        'discovered under it. Omitted: the run gets a scratch directory and only home and bundled ' +
        'workflows are found.',
    ),
});

const conversationIdPattern = /^[\w.:-]{1,200}$/;

/** Conversation ids travel in stream URLs; keep them to URL-safe characters. */
export const conversationIdSchema = z
  .string({ error: 'conversationId must be a non-empty string' })
  .min(1, { error: 'conversationId must be a non-empty string', abort: true })
  .regex(conversationIdPattern, {
    error: "conversationId must be a non-empty alphanumeric string (letters, digits, '_', '-', '.', ':')",
  });

export const inputsSchema = z
  .record(
    z.string(),
    z.string({ error: (iss) => `inputs value for '${String(iss.path?.at(-1))}' must be a string` }),
    { error: 'inputs must be an object mapping input names to strings' },
  )
  .describe('Values for the workflow’s declared inputs; omitted names take their declared default');

const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Keys an inline run `config` may carry (contract run rule 3). */
export const runConfigKeys = [
  'assistant',
  'defaultAssistant',
  'assistants',
  'tiers',
  'aliases',
  'workflows',
  'docs',
  'env',
] as const;

function unknownConfigKeyMessage(keys: readonly PropertyKey[]): string {
  const names = keys.map(String);
  if (names.includes('configPath')) {
    return 'config.configPath is not accepted: a run cannot point at another config file; put the settings inline';
  }
  const list = names.map((k) => `'${k}'`).join(', ');
  return `config: unknown key ${list}; accepted keys are ${runConfigKeys.join(', ')} (docs.path only)`;
}

const nonEmpty = (field: string) =>
  z.string({ error: `${field} must be a non-empty string` }).trim().min(1, { error: `${field} must be a non-empty string` });

export const runConfigSchema = z
  .strictObject(
    {
      assistant: nonEmpty('config.assistant').optional(),
      defaultAssistant: nonEmpty('config.defaultAssistant').optional(),
      assistants: z
        .record(z.string(), z.looseObject({ model: nonEmpty('config.assistants.<id>.model').optional() }), {
          error: 'config.assistants must be an object keyed by assistant id, each { model?, ... }',
        })
        .optional(),
      tiers: tiersSchema('config.tiers').optional(),
      aliases: aliasesSchema('config.aliases').optional(),
      workflows: z.record(z.string(), z.unknown(), { error: 'config.workflows must be an object' }).optional(),
      docs: z
        .strictObject(
          { path: nonEmpty('config.docs.path').optional() },
          {
            error: (iss) =>
              iss.code === 'unrecognized_keys'
                ? `config.docs: unknown key ${iss.keys.map((k) => `'${k}'`).join(', ')}; only docs.path is accepted`
                : 'config.docs must be an object { path }',
          },
        )
        .optional(),
      env: z
        .record(
          z.string(),
          z.string({ error: (iss) => `config.env value for '${String(iss.path?.at(-1))}' must be a string` }),
          { error: 'config.env must be an object of string values' },
        )
        .superRefine((env, ctx) => {
          for (const key of Object.keys(env)) {
            if (!envNamePattern.test(key)) {
              ctx.addIssue({ code: 'custom', path: [key], message: `config.env key '${key}' is not a valid variable name` });
            }
          }
        })
        .optional(),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys' ? unknownConfigKeyMessage(iss.keys) : 'config must be an object',
    },
  )
  .describe(
    'Sparse runtime config for this run only. Keys: assistant or defaultAssistant, assistants, ' +
      'tiers, aliases, workflows, docs.path, env. configPath is always rejected.',
  );
export type RunConfig = z.infer<typeof runConfigSchema>;

export const runRequestBodySchema = z
  .strictObject(
    {
      message: z
        .string({ error: 'message must be a string' })
        .optional()
        .describe('The task text ($ARGUMENTS / $USER_MESSAGE in the workflow)'),
      conversationId: conversationIdSchema
        .optional()
        .describe('Conversation to attach the run to; generated (web-<ms>-<6 chars>) when omitted'),
      inputs: inputsSchema.optional(),
      tiers: tiersSchema('tiers')
        .optional()
        .describe('Rebinds only the named tiers for this run; kept in run metadata for the engine'),
      aliases: aliasesSchema('aliases')
        .optional()
        .describe('Rebinds only the named @aliases for this run; kept in run metadata for the engine'),
      config: runConfigSchema.optional(),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `Unknown field ${iss.keys.map((k) => `'${String(k)}'`).join(', ')}; accepted fields are message, conversationId, inputs, tiers, aliases, config`
          : 'Request body must be a JSON object',
    },
  )
  // Fastify hands a missing body to the validator as null: no body means all defaults.
  .nullish();
export type RunRequestBody = z.infer<typeof runRequestBodySchema>;

export const runStartResponseSchema = z.object({
  accepted: z.literal(true),
  runId: z.string().describe('Id of the new run (status pending until the supervisor starts it)'),
  conversationId: z.string(),
  status: z.literal('pending'),
});
export type RunStartResponse = z.infer<typeof runStartResponseSchema>;
