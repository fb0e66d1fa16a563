import { z } from 'zod';
import { docsPathProblem } from '../../shared/docs-path.js';
import { aliasesSchema, tiersSchema } from '../../models/model-spec.js';
import { refusedEnvName } from './run-env-names.js';

/**
 * What one run may rebind for itself: tiers, aliases and an inline sparse config (contract: run
 * request fields `tiers`, `aliases`, `config`). One definition serves both sides: the run request
 * validates with it (the messages name the field, because a 400 is all the client gets), and the
 * stored copy in `metadata.overrides` is read back with it by the API and the engine.
 */

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

/**
 * Keys of a config file that mean nothing for one run (server, chat or install settings): refused
 * as ineffective, saying so, rather than accepted and silently ignored.
 */
const ineffectiveConfigKeys = new Set([
  'botName', 'streaming', 'concurrency', 'defaults', 'port', 'database', 'worktree', 'commands',
  'recommendedWorkflows', 'paths', 'baseBranch', 'copyDefaults', 'loadDefaultCommands', 'loadDefaultWorkflows',
]);

function unknownConfigKeyMessage(keys: readonly PropertyKey[]): string {
  const names = keys.map(String);
  if (names.includes('configPath')) {
    return 'config.configPath is not accepted: a run cannot point at another config file; put the settings inline';
  }
  if (names.includes('baseBranch') || names.includes('worktree')) {
    const key = names.includes('baseBranch') ? 'baseBranch' : 'worktree';
    return `config: key '${key}' is not accepted here; give the run's base branch as the request field baseBranch (cairn workflow run --base <branch>)`;
  }
  const ineffective = names.find((name) => ineffectiveConfigKeys.has(name));
  if (ineffective !== undefined) {
    return `config: key '${ineffective}' has no effect on one run (it is a server or project setting); accepted keys are ${runConfigKeys.join(', ')} (docs.path only)`;
  }
  const list = names.map((k) => `'${k}'`).join(', ');
  return `config: unknown key ${list}; accepted keys are ${runConfigKeys.join(', ')} (docs.path only)`;
}

const nonEmpty = (field: string) =>
  z.string({ error: `${field} must be a non-empty string` }).trim().min(1, { error: `${field} must be a non-empty string` });

/** `config.docs.path`: the run's `$DOCS_DIR`, a folder of the project in the alphabet docs-path.ts allows. */
const docsPathSchema = nonEmpty('config.docs.path').superRefine((path, ctx) => {
  const problem = docsPathProblem(path);
  if (problem) ctx.addIssue({ code: 'custom', message: `config.docs.path ${JSON.stringify(path)} cannot be used: ${problem}` });
});

const docsSchema = z.strictObject(
  { path: docsPathSchema.optional() },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `config.docs: unknown key ${iss.keys.map((k) => `'${k}'`).join(', ')}; only docs.path is accepted`
        : 'config.docs must be an object { path }',
  },
);

/** Limits on `config.env`: an entry must fit the kernel's limit on one environment string, with room to spare. */
export const RUN_ENV_LIMITS = { names: 64, valueBytes: 32 * 1024, totalBytes: 128 * 1024 } as const;

const envSchema = z
  .record(
    z.string(),
    z.string({ error: (iss) => `config.env value for '${String(iss.path?.at(-1))}' must be a string` }),
    { error: 'config.env must be an object of string values' },
  )
  .superRefine((env, ctx) => {
    const names = Object.keys(env);
    if (names.length > RUN_ENV_LIMITS.names) {
      ctx.addIssue({ code: 'custom', message: `config.env has ${names.length} names; at most ${RUN_ENV_LIMITS.names} are accepted` });
      return;
    }
    let total = 0;
    for (const [key, value] of Object.entries(env)) {
      if (!envNamePattern.test(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `config.env key '${key}' is not a valid variable name`,
        });
        continue;
      }
      const refused = refusedEnvName(key);
      if (refused) {
        ctx.addIssue({ code: 'custom', path: [key], message: `config.env key '${key}' is not accepted: ${refused}` });
        continue;
      }
      if (value.includes('\0')) {
        ctx.addIssue({ code: 'custom', path: [key], message: `config.env value for '${key}' must not contain a NUL byte (\\u0000)` });
        continue;
      }
      const bytes = Buffer.byteLength(value);
      total += bytes;
      if (bytes > RUN_ENV_LIMITS.valueBytes) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `config.env value for '${key}' is ${bytes} bytes; a value may be at most ${RUN_ENV_LIMITS.valueBytes} (put larger data in a file or an input)`,
        });
      }
    }
    if (total > RUN_ENV_LIMITS.totalBytes) {
      ctx.addIssue({ code: 'custom', message: `config.env values total ${total} bytes; at most ${RUN_ENV_LIMITS.totalBytes} are accepted` });
    }
  });

/**
 * One assistant's settings for one run: only its model has an effect. Anything else a config
 * file may hold there (a key, a base URL, a binary path) is refused, naming the key and never
 * echoing its value: a run's overrides are shown back in its detail.
 */
const runAssistantSchema = z.strictObject(
  { model: nonEmpty('config.assistants.<id>.model').optional() },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `config.assistants.<id>: key ${iss.keys.map((k) => `'${k}'`).join(', ')} has no effect on one run; only model is accepted (a key goes in the server's environment or through PUT /api/auth/providers/{provider})`
        : 'config.assistants.<id> must be an object { model? }',
  },
);

export const runConfigSchema = z
  .strictObject(
    {
      assistant: nonEmpty('config.assistant').optional(),
      defaultAssistant: nonEmpty('config.defaultAssistant').optional(),
      assistants: z
        .record(z.string(), runAssistantSchema, { error: 'config.assistants must be an object keyed by assistant id, each { model? }' })
        .optional(),
      tiers: tiersSchema('config.tiers').optional(),
      aliases: aliasesSchema('config.aliases').optional(),
      workflows: z.record(z.string(), z.unknown(), { error: 'config.workflows must be an object' }).optional(),
      docs: docsSchema.optional(),
      env: envSchema.optional(),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys' ? unknownConfigKeyMessage(iss.keys) : 'config must be an object',
    },
  )
  .superRefine((config, ctx) => {
    if (config.assistant !== undefined && config.defaultAssistant !== undefined && config.assistant !== config.defaultAssistant) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultAssistant'],
        message: 'config.assistant and config.defaultAssistant name different assistants; they are one setting, give one of them',
      });
    }
  })
  .describe(
    'Sparse runtime config for this run only. Keys: assistant or defaultAssistant, assistants, ' +
      'tiers, aliases, workflows, docs.path, env. configPath is always rejected.',
  );
export type RunConfig = z.infer<typeof runConfigSchema>;

/**
 * `metadata.overrides`: the request's tiers, aliases and inline config, kept for the engine.
 * `config.env` values are secrets: here only their names, in `env_names`; the values are sealed
 * with the install key in `metadata.sealed_env`.
 */
export const runOverridesSchema = z.looseObject({
  tiers: tiersSchema('overrides.tiers').optional(),
  aliases: aliasesSchema('overrides.aliases').optional(),
  config: runConfigSchema.optional(),
  env_names: z
    .array(z.string())
    .optional()
    .describe('The names of config.env; the values are sealed in metadata.sealed_env, never shown or logged'),
});
export type RunOverrides = z.infer<typeof runOverridesSchema>;

/**
 * The overrides a request actually gave (tiers, aliases, config), or undefined when none, with
 * `config.env` reduced to its names: its values go only into `metadata.sealed_env`, sealed.
 */
export function pickRunOverrides(request: Pick<RunOverrides, 'tiers' | 'aliases' | 'config'> & Record<string, unknown>): RunOverrides | undefined {
  const overrides: RunOverrides = {};
  if (request.tiers !== undefined) overrides.tiers = request.tiers;
  if (request.aliases !== undefined) overrides.aliases = request.aliases;
  if (request.config !== undefined) {
    const { env, ...config } = request.config;
    overrides.config = config;
    if (env !== undefined) overrides.env_names = Object.keys(env);
  }
  return Object.keys(overrides).length > 0 ? overrides : undefined;
}
