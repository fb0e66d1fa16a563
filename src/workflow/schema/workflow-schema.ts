import { z } from 'zod';
import { permissionsSchema, sandboxSchema, thinkingSchema } from './node-blocks.js';
import { effortSchema } from '../../models/effort.js';
import type { DefinitionNode, WorkflowNode } from './node-schema.js';
import { triggersSchema } from '../triggers/trigger-schema.js';
import { concurrencySchema } from './concurrency.js';
import { githubWorkflowSchema } from './github-writes.js';
import { inputSpecSchema } from './input-spec.js';

/**
 * The top level of a workflow file. `nodes` is validated node by node by the loader (each with
 * the schema of its mode), so here it is only "a non-empty list".
 */

/** Input names become `$INPUTS.<name>` and the env var `INPUTS_<UPPER_SNAKE>`. */
export const inputNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'input names start with a letter or _, then letters, digits, _ or -');

export { inputSpecSchema, type InputSpec } from './input-spec.js';

export const workflowRootSchema = z.object({
  name: z.string().trim().min(1),
  description: z.string().trim().min(1),
  nodes: z.array(z.unknown()).min(1),
  provider: z.string().trim().min(1).optional(),
  /** A tier (`small`/`medium`/`large`), an `@alias`, or a literal model id. */
  model: z.string().trim().min(1).optional(),
  effort: effortSchema.optional(),
  thinking: thinkingSchema.optional(),
  fallbackModel: z.string().trim().min(1).optional(),
  betas: z.array(z.string().trim().min(1)).min(1).optional(),
  sandbox: sandboxSchema.optional(),
  /** Deprecated upstream spelling of `effort`; the loader moves it to `effort` with a warning. */
  modelReasoningEffort: z.enum(['minimal', 'low', 'medium', 'high', 'xhigh']).optional(),
  webSearchMode: z.enum(['disabled', 'cached', 'live']).optional(),
  /** ✚ The permission level of every AI node that does not set its own (default `workspace`). */
  permissions: permissionsSchema.optional(),
  interactive: z.boolean().optional(),
  worktree: z.object({ enabled: z.boolean().optional() }).optional(),
  mutates_checkout: z.boolean().optional(),
  persist_sessions: z.boolean().optional(),
  tags: z.array(z.string().trim().min(1)).optional(),
  requires: z.array(z.enum(['github'])).optional(),
  inputs: z.record(inputNameSchema, inputSpecSchema).optional(),
  /** Cairn extension: the run pauses before an AI attempt once its engine-counted cost reached `usd`. */
  budget: z.strictObject({ usd: z.number().positive() }).optional(),
  /**
   * ✚ A run that fails only on a provider's usage limit resumes by itself once the limit resets
   * (the reset the provider states); at most `max_resumes` times (default 3). docs/runs.md.
   */
  /**
   * ✚ Files a run must leave under `$ARTIFACTS_DIR` (present and not empty) for it to complete:
   * a run whose nodes all succeeded without them ends `failed` (docs/runs.md, "Evidence").
   */
  evidence_policy: z
    .strictObject({
      required: z
        .array(
          z
            .string()
            .trim()
            .min(1)
            .max(500)
            .refine((p) => isPlainRelativePath(p), {
              message: 'must be a path inside $ARTIFACTS_DIR: relative, with no `..`, `.` or empty segment, no backslash or NUL',
            }),
        )
        .min(1)
        .max(50),
    })
    .optional(),
  auto_resume: z
    .strictObject({ on_quota: z.boolean(), max_resumes: z.number().int().positive().max(100).optional() })
    .optional(),
  /** The node whose output is the workflow's result (for `include:` and child runs). */
  returns: z.string().trim().min(1).optional(),
  /** A boolean field of the `returns` node's output recorded as the run's outcome. */
  outcome_field: z.string().trim().min(1).optional(),
  /** What starts the workflow by itself: `- schedule: { cron, timezone, inputs, overlap, catch_up }` (docs/schedules.md). */
  triggers: triggersSchema.optional(),
  /** ✚ How many runs with the same key may be open at once, and what a start does past that (docs/workflows.md, "Concurrency"). */
  concurrency: concurrencySchema.optional(),
  /** ✚ The GitHub writes a run may make and how many of each: `github: { writes: { comment: 2 } }` (docs/github.md). */
  github: githubWorkflowSchema.optional(),
});
type WorkflowRoot = z.infer<typeof workflowRootSchema>;

/** A workflow as written (before `include:` expansion). */
export type WorkflowDefinitionDraft = Omit<WorkflowRoot, 'nodes' | 'modelReasoningEffort'> & {
  nodes: DefinitionNode[];
};

/** A loaded workflow: validated, with every `include:` expanded into plain nodes. */
export type WorkflowDefinition = Omit<WorkflowRoot, 'nodes' | 'modelReasoningEffort'> & { nodes: WorkflowNode[] };

/** Keys valid at the top level of a workflow. */
export const knownWorkflowKeys: ReadonlySet<string> = new Set(Object.keys(workflowRootSchema.shape));

/** A path under a folder, written plainly: `a/b.md`, never `/a`, `../a`, `a/./b`, `a//b` or `a\\b`. */
function isPlainRelativePath(path: string): boolean {
  if (path.includes('\\') || path.includes('\0') || path.startsWith('/')) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
