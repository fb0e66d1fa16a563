import { z } from 'zod';
import { runConfigSchema } from '../store/schemas/run-overrides.js';
import { aliasesSchema, tiersSchema } from '../models/model-spec.js';
import { isReservedConversationId, reservedConversationIdText } from '../shared/conversation-id.js';
import { runMessageSchema } from '../runs/run-message.js';
import { withoutNul } from '../shared/without-nul.js';

/**
 * `POST /api/workflows/{name}/run`: params, query, body and answer. The API validates with these
 * and describes them in `/api/openapi.json`; the CLI sends the body and parses the answer. The
 * messages are the ones upstream clients match on.
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
  cwd: withoutNul(
    z.string({ error: 'cwd must be a string' }).min(1, { error: 'cwd must be a non-empty path' }),
    () => 'cwd',
  )
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
  })
  .refine((id) => !isReservedConversationId(id), {
    error: `conversationId ${reservedConversationIdText}, or omit conversationId to get a new one`,
  });

const inputName = (path: readonly PropertyKey[]) => String(path.at(-1));

export const inputsSchema = z
  .record(
    z.string(),
    withoutNul(
      z.string({ error: (iss) => `inputs value for '${inputName(iss.path ?? [])}' must be a string` }),
      (path) => `inputs value for '${inputName(path)}'`,
    ),
    { error: 'inputs must be an object mapping input names to strings' },
  )
  .describe('Values for the workflow’s declared inputs; omitted names take their declared default');

/** Whether a JSON value holds a NUL byte in any string or key. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, inner]) => key.includes('\0') || holdsNul(inner));
}

export const typedInputsSchema = z
  .record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
      error: (iss) =>
        `typedInputs value for '${inputName(iss.path ?? [])}' must be text, a number, a boolean, an array or an object ` +
        '(null is not a value: leave the input out to take its default)',
    }).refine((value) => !holdsNul(value), {
      // A NUL byte cannot reach a process (environment values are C strings): refused here, not when a node runs.
      error: (iss) => `typedInputs value for '${inputName(iss.path ?? [])}' must not contain a NUL byte (\\u0000)`,
    }),
    { error: 'typedInputs must be an object mapping input names to values' },
  )
  .describe(
    'Cairn extension. Values for the workflow’s declared inputs as JSON values, checked against each input’s declared ' +
      'type (number, integer, boolean, array, object, string) as they are: "3" is not a number here. Beside inputs (text, ' +
      'converted by the declared type); an input given in both is refused.',
  );

export const runRequestBodySchema = z
  .strictObject(
    {
      message: runMessageSchema
        .optional()
        .describe('The task text ($ARGUMENTS / $USER_MESSAGE in the workflow)'),
      conversationId: conversationIdSchema
        .optional()
        .describe('Conversation to attach the run to; generated (web-<ms>-<6 chars>) when omitted'),
      inputs: inputsSchema.optional(),
      typedInputs: typedInputsSchema.optional(),
      tiers: tiersSchema('tiers')
        .optional()
        .describe('Rebinds only the named tiers for this run; kept in run metadata for the engine'),
      aliases: aliasesSchema('aliases')
        .optional()
        .describe('Rebinds only the named @aliases for this run; kept in run metadata for the engine'),
      config: runConfigSchema.optional(),
      codebaseId: z
        .string({ error: 'codebaseId must be a string' })
        .min(1, { error: 'codebaseId must be a non-empty codebase id (owner/repo)' })
        .max(300, { error: 'codebaseId is longer than any codebase id' })
        .optional()
        .describe(
          'Cairn extension. The registered codebase to run on (owner/repo, as GET /api/codebases lists it): the run ' +
            'gets its own git worktree of it. Also implied when cwd is the checkout of a registered codebase.',
        ),
      budget: z
        .strictObject({ usd: z.number({ error: 'budget.usd must be a number' }).positive({ error: 'budget.usd must be greater than 0' }) })
        .optional()
        .describe(
          'Cairn extension. The run’s USD budget, over the workflow’s own budget.usd: before each AI attempt starts, a run ' +
            'whose engine-counted cost (metadata.totals.total_cost_usd) reached it pauses (workflow_paused, reason ' +
            '“budget exceeded: spent $X of $Y”); running attempts finish. Kept in metadata.budget.',
        ),
      branch: z
        .string({ error: 'branch must be a string' })
        .optional()
        .describe(
          'Cairn extension. The branch of the run’s worktree (a valid git branch name of letters, digits and . _ / + -); ' +
            'default cairn/<workflow>-<first 8 of run id>. A branch already used by an active worktree fails the run.',
        ),
      baseBranch: z
        .string({ error: 'baseBranch must be a string' })
        .optional()
        .describe(
          'Cairn extension. The run’s base branch: its $BASE_BRANCH, and where its worktree’s new branch is cut from. ' +
            'Must name a branch of the run’s repository (the codebase’s checkout, or the cwd), locally or as ' +
            'origin/<name>; otherwise 400. Default: worktree.baseBranch of the project config, else the codebase’s ' +
            'default branch, else origin/HEAD, main or master.',
        ),
    },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `Unknown field ${iss.keys.map((k) => `'${String(k)}'`).join(', ')}; accepted fields are message, conversationId, inputs, typedInputs, tiers, aliases, config, codebaseId, branch, baseBranch, budget`
          : 'Request body must be a JSON object',
    },
  )
  // Fastify hands a missing body to the validator as null: no body means all defaults.
  .nullish();
export type RunRequestBody = z.infer<typeof runRequestBodySchema>;

/**
 * The multipart form of the run request, for `/api/openapi.json`: the JSON body's fields as form
 * fields (the object-valued ones JSON-encoded in one field each) and the attachments. The route
 * decodes the form into the JSON body's shape and checks it with `runRequestBodySchema`.
 */
export const runMultipartBodySchema = z.object({
  message: z.string().optional().describe('The task text'),
  conversationId: z.string().optional().describe('Conversation to attach the run to'),
  inputs: z.string().optional().describe('JSON-encoded object of string values, e.g. {"version":"1.2"}'),
  typedInputs: z.string().optional().describe('JSON-encoded object of typed values, e.g. {"count":3}'),
  config: z.string().optional().describe('JSON-encoded inline config (same keys as the JSON body’s config)'),
  tiers: z.string().optional().describe('JSON-encoded tiers map'),
  aliases: z.string().optional().describe('JSON-encoded aliases map'),
  codebaseId: z.string().optional(),
  budget: z.string().optional().describe('JSON-encoded budget, e.g. {"usd": 2.5}'),
  branch: z.string().optional(),
  baseBranch: z.string().optional(),
  files: z
    .array(z.string().meta({ format: 'binary' }))
    .max(5)
    .optional()
    .describe('Attachments: at most 5 files, at most 10 MB each, kept in the run’s $ATTACHMENTS_DIR'),
});

export const runStartResponseSchema = z.object({
  accepted: z.literal(true),
  runId: z.string().describe('Id of the new run (status pending until the supervisor starts it)'),
  conversationId: z.string(),
  status: z.literal('pending'),
});
export type RunStartResponse = z.infer<typeof runStartResponseSchema>;
