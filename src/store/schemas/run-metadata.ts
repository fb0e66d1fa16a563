import { z } from 'zod';
import { workflowSourceSchema } from '../../shared/workflow-source.js';
import { modelBindingsSchema } from './model-bindings.js';
import { runAttachmentSchema } from './run-attachment.js';
import { runOverridesSchema } from './run-overrides.js';
import { approvalContextSchema, rejectionsSchema } from './approval.js';
import { runTotalsSchema, runTotalsStateSchema } from './run-usage.js';
import { runConcurrencySchema } from '../../shared/run-concurrency.js';

/**
 * A run's `metadata`: what the API records when it queues the run, read by the API (run views),
 * the supervisor (start events) and later the engine (model bindings). Keys this version does
 * not know are kept as they are, so a row written by a newer version survives a read and a patch.
 */
export const runMetadataSchema = z.looseObject({
  workflow_source: workflowSourceSchema.optional().describe('The scope the workflow was loaded from'),
  workflow_filename: z.string().optional().describe('The file inside its scope folder, e.g. review.yaml'),
  parse_warnings: z
    .array(z.string())
    .optional()
    .describe('Keys of the workflow file the engine ignores, one message each; omitted when clean'),
  isolation: z
    .looseObject({ branch: z.string().optional(), base: z.string().optional() })
    .optional()
    .describe(
      'What the request asked of the run’s worktree: the branch it named (omitted: cairn/<workflow>-<run id>) and ' +
        'its base (baseBranch, checked to exist when the run was queued; a new branch is cut from it)',
    ),
  base_branch: z
    .looseObject({ name: z.string(), source: z.string() })
    .optional()
    .describe(
      'The run’s $BASE_BRANCH, resolved once when it first started and reused by a resume, a take-over and its ' +
        'child runs. source: request (baseBranch), project_config (worktree.baseBranch), codebase (the codebase’s ' +
        'default branch), origin_head, main or master (found in the repository). Absent while none could be found.',
    ),
  state_dir: z
    .string()
    .optional()
    .describe(
      'The run’s $STATE_DIR: $CAIRN_HOME/workspaces/<owner>/<repo>/state for a run on a codebase (kept across its ' +
        'runs), or its parent’s for a child run. Absent for a run without a codebase.',
    ),
  overrides: runOverridesSchema
    .optional()
    .describe('The request’s tiers, aliases and inline config, kept for the engine; config.env only by its names (env_names), its values sealed in sealed_env'),
  sealed_env: z
    .string()
    .optional()
    .describe(
      'The request’s config.env values, sealed with the install key for this run (shared/secrets); opened by the ' +
        'supervisor when the run starts and set in its nodes’ environment. Never shown over HTTP; the names are in overrides.env_names',
    ),
  model_bindings: modelBindingsSchema
    .optional()
    .describe('The run’s own layer of model bindings, resolved when it was queued and reused unchanged on resume'),
  attachments: z
    .array(runAttachmentSchema)
    .optional()
    .describe('Files sent with a multipart run request, kept in $ATTACHMENTS_DIR ($ARTIFACTS_DIR/attachments)'),
  hook: z
    .looseObject({ id: z.string(), name: z.string(), delivery_id: z.string() })
    .optional()
    .describe('A run a webhook started: the hook (id, name) and the delivery id it was admitted under (docs/webhooks.md)'),
  github: z
    .looseObject({
      repository: z.string(),
      number: z.number().int(),
      kind: z.enum(['issue', 'pull_request']),
      trigger: z.enum(['comment', 'label', 'issue_opened']),
      author: z.string(),
      comment_id: z.number().int().optional(),
      run_url: z.string(),
    })
    .optional()
    .describe('A run a GitHub hook started (docs/github.md): the issue or pull request, what started it and who, its link in the dashboard'),
  concurrency: runConcurrencySchema
    .optional()
    .describe(
      'A run of a workflow with `concurrency:`: its key (computed once when it was admitted), limit and on_overlap; ' +
        'while it waits for a place, waiting_for (the runs holding the places) and position (1: next to start)',
    ),
  parent_conversation_id: z
    .string()
    .optional()
    .describe('The conversation (platform id) a chat /workflow run was dispatched from; the result is posted there'),
  parent_node_id: z
    .string()
    .optional()
    .describe('A child run: the path of the parent run’s `workflow:` node that started it (parent_run_id names the parent)'),
  child_index: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('A child run: its index among the node’s children (its fan-out item; 0 for a single child)'),
  approval: approvalContextSchema
    .optional()
    .describe('While the run is paused: the gate it waits at (node, message, what an answer does); `resolved` once answered'),
  rejections: rejectionsSchema
    .optional()
    .describe('Per gate with `on_reject`: how many times it was rejected, and the last reason ($REJECTION_REASON)'),
  budget: z
    .looseObject({ usd: z.number().positive() })
    .optional()
    .describe(
      'The run’s USD budget: the request’s budget.usd, else the workflow’s, when it was queued (a budget-paused run’s ' +
        'resume may raise it). It covers the run and every run below it: before each AI attempt starts, a run whose ' +
        'total_cost_usd + descendants_cost_usd reached it (or an ancestor’s, see budget_scope) pauses instead.',
    ),
  budget_scope: z
    .array(z.string())
    .optional()
    .describe(
      'A child run: the runs above it that have a budget, nearest first. Its costed attempts count toward each of them ' +
        '(their descendants_cost_usd), and it pauses when one of those budgets is reached.',
    ),
  descendants_cost_usd: z
    .number()
    .nonnegative()
    .optional()
    .describe(
      'A run with a budget: what the runs below it (child runs, fan-out items, theirs) have spent, USD. Its budget is ' +
        'checked against total_cost_usd + descendants_cost_usd; total_cost_usd stays the run’s own attempts.',
    ),
  budget_pause: z
    .looseObject({
      reason: z.string(),
      spent_usd: z.number(),
      budget_usd: z.number(),
      budget_run_id: z.string().optional(),
      at: z.string().optional(),
    })
    .optional()
    .describe(
      'While the run is paused by a budget: why (the tree spend and the budget, USD), whose budget it was (budget_run_id: ' +
        'this run or one above it) and when; cleared by the resume',
    ),
  auto_resume: z
    .looseObject({ at: z.string(), nodes: z.array(z.string()), resume: z.number(), of: z.number() })
    .optional()
    .describe(
      'While a failed run waits for a provider’s usage limit to reset (the workflow’s auto_resume): when it resumes by ' +
        'itself, the nodes that hit the limit, and which of its automatic resumes that is (resume of of); cleared by any resume',
    ),
  auto_resumes: z.number().int().nonnegative().optional().describe('How many automatic resumes after a usage limit the run has had'),
  totals: runTotalsStateSchema
    .optional()
    .describe(
      'Usage of every attempt so far (failed, cancelled, retried and resumed ones included), kept by the engine as each ' +
        'attempt ends: total_cost_usd, total_tokens_in/out, total_cache_read/write_tokens, total_cache_partial, ' +
        'total_tokens_incomplete (token totals then absent), and what was counted. A key is absent, not 0, until reported.',
    ),
  ...mirroredTotals(),
  unreadable: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'Stored keys whose value this version cannot read, each with what is wrong; the value itself ' +
        'is left out of the answer (it stays in the database). Absent when every key reads.',
    ),
});
export type RunMetadata = z.infer<typeof runMetadataSchema>;

/** The `total_*` keys of metadata.totals, mirrored at the top of the metadata (the upstream's place for them). */
function mirroredTotals() {
  const shape = runTotalsSchema.shape;
  return Object.fromEntries(
    Object.entries(shape).map(([key, schema]) => [key, schema.describe(`The same as totals.${key} (kept here for upstream clients)`)]),
  ) as { [K in keyof typeof shape]: (typeof shape)[K] };
}

/** The keys with a schema; every other key is kept unchecked. */
const knownKeys = runMetadataSchema.shape;

function isKnownKey(key: string): key is keyof typeof knownKeys {
  return Object.hasOwn(knownKeys, key);
}

/** The first problems, each prefixed with its path inside the key unless the message names it. */
function describeProblem(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map(String);
      const first = path[0];
      return first === undefined || issue.message.includes(first) ? issue.message : `${path.join('.')}: ${issue.message}`;
    })
    .join('; ');
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * Reads stored metadata without ever throwing: rows are written by every version of Cairn that
 * used the database. A known key whose value does not fit its schema is left out and named in
 * `unreadable` with the reason (so one bad row cannot break a run list); unknown keys are kept.
 * Reading the result again gives the same result.
 */
export function parseRunMetadata(stored: unknown): RunMetadata {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    return { unreadable: { metadata: `expected an object, found ${describeValue(stored)}` } };
  }
  const metadata: Record<string, unknown> = {};
  const unreadable: Record<string, string> = {};
  for (const [key, value] of Object.entries(stored)) {
    if (!isKnownKey(key)) {
      metadata[key] = value;
      continue;
    }
    const parsed = knownKeys[key].safeParse(value);
    if (parsed.success) {
      if (parsed.data !== undefined) metadata[key] = parsed.data;
    } else {
      unreadable[key] = describeProblem(parsed.error);
    }
  }
  if (Object.keys(unreadable).length > 0) {
    metadata.unreadable = { ...(metadata.unreadable as Record<string, string> | undefined), ...unreadable };
  }
  return metadata as RunMetadata;
}
