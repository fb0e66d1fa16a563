import { z } from 'zod';
import { isValidCommandName } from './command-name.js';
import { agentsSchema, approvalSchema, contextSchema, fanOutSchema, hooksSchema, loopGroupSchema, loopSchema, outputFormatSchema, permissionsSchema, piSchema, retrySchema, sandboxSchema, thinkingSchema, triggerRuleSchema, waitSchema, withSchema } from './node-blocks.js';
import { effortSchema } from '../../models/effort.js';
import { githubNodeBlockSchema } from './github-writes.js';

/**
 * One schema per node mode. A node has exactly one mode key (`prompt`, `command`, `bash`,
 * `script`, `loop`, `loop_group`, `approval`, `cancel`, `wait`, `workflow`, `github`, `include`); its
 * schema's keys are the keys that mean something for that mode. The loader parses a node with
 * the schema of its mode, so a key that belongs to another mode (say `model:` on a bash node) is
 * stripped, and reported as "will be ignored" — the key sets here are the single source for both.
 */

/**
 * The longest node id a workflow may declare (check-node-ids.ts). An id names the node's files
 * under the run's artifacts (spilled outputs, sessions, checkout manifests), where a name over
 * 255 bytes cannot be made; every id in the upstream corpus is under 30 characters. Ids composed
 * by include expansion (`<include>__<id>`) may be longer: file names from them are shortened.
 */
export const MAX_NODE_ID_LENGTH = 100;

/** An id as messages quote it: whole up to MAX_NODE_ID_LENGTH, else its start. */
export function quotedNodeId(id: string): string {
  return id.length <= MAX_NODE_ID_LENGTH ? id : `${id.slice(0, 40)}…`;
}

const nodeIdSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "missing required field 'id'" : "'id' must be a string") })
  .trim()
  .min(1, { error: "missing required field 'id'", abort: true })
  .refine((id) => id !== 'INPUTS', { message: "'INPUTS' is reserved and cannot be a node id" })
  // `$id.output` references and record paths (`group/node`, `fanout[2]`) are built from ids:
  // letters, digits, `_` and `-` only (every id in the upstream corpus fits).
  .refine((id) => /^[A-Za-z0-9_][A-Za-z0-9_-]*$/.test(id), {
    error: (issue) => `'${quotedNodeId(String(issue.input))}' is not a valid node id: use letters, digits, '_' and '-' (it must not start with '-')`,
  });

/** Keys every node has: identity and graph edges. */
const structuralShape = {
  id: nodeIdSchema,
  description: z.string().optional(),
  depends_on: z.array(z.string().trim().min(1)).optional(),
  when: z.string().trim().min(1).optional(),
  trigger_rule: triggerRuleSchema.optional(),
};

/** Keys of nodes that produce an output of their own. */
const outputShape = {
  always_run: z.boolean().optional(),
  output_type: z.string().trim().min(1).optional(),
};

const positiveMs = (name: string) =>
  z
    .number()
    .refine((ms) => Number.isFinite(ms) && ms > 0, { message: `'${name}' must be a positive number (ms)` });

/** Keys that configure a provider call. */
const aiShape = {
  provider: z.string().trim().min(1).optional(),
  model: z.string().trim().min(1).optional(),
  context: contextSchema.optional(),
  output_format: outputFormatSchema.optional(),
  allowed_tools: z.array(z.string()).optional(),
  denied_tools: z.array(z.string()).optional(),
  hooks: hooksSchema.optional(),
  mcp: z.string().trim().min(1, "'mcp' must be a path to a JSON file").optional(),
  skills: z.array(z.string().trim().min(1)).min(1, "'skills' must not be empty").optional(),
  agents: agentsSchema.optional(),
  pi: piSchema.optional(),
  effort: effortSchema.optional(),
  thinking: thinkingSchema.optional(),
  maxBudgetUsd: z.number().positive().optional(),
  systemPrompt: z.string().trim().min(1).optional(),
  fallbackModel: z.string().trim().min(1).optional(),
  betas: z.array(z.string().trim().min(1)).min(1, "'betas' must not be empty").optional(),
  sandbox: sandboxSchema.optional(),
  settingSources: z.array(z.string()).optional(),
  persist_session: z.boolean().optional(),
  idle_timeout: positiveMs('idle_timeout').optional(),
  /** ✚ How far the agent may act: `read_only`, `workspace` (default) or `full`. */
  permissions: permissionsSchema.optional(),
};

const commandNameSchema = z
  .string()
  .trim()
  .min(1, 'command cannot be empty')
  .refine(isValidCommandName, { error: (issue) => `invalid command name "${String(issue.input)}"` });

const nonEmpty = (message: string) => z.string().refine((s) => s.trim() !== '', { message });

export const promptNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  ...aiShape,
  retry: retrySchema.optional(),
  prompt: nonEmpty('prompt cannot be empty'),
});

export const commandNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  ...aiShape,
  retry: retrySchema.optional(),
  command: commandNameSchema,
  with: withSchema.optional(),
});

export const bashNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  retry: retrySchema.optional(),
  bash: nonEmpty('bash script cannot be empty'),
  timeout: positiveMs('timeout').optional(),
});

export const scriptNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  retry: retrySchema.optional(),
  script: nonEmpty('script cannot be empty'),
  runtime: z.enum(['bun', 'uv'], {
    error: (issue) =>
      issue.input === undefined
        ? "'runtime' is required for script nodes ('bun' or 'uv')"
        : `'runtime' must be 'bun' or 'uv', not '${String(issue.input)}'`,
  }),
  deps: z.array(z.string().trim().min(1, 'each dep must be a non-empty string')).optional(),
  timeout: positiveMs('timeout').optional(),
  with: withSchema.optional(),
});

/** A loop runs a prompt per iteration, so the provider keys apply to every iteration. */
const { context: _context, persist_session: _persistSession, ...loopAiShape } = aiShape;

export const loopNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  ...loopAiShape,
  loop: loopSchema,
});

export const loopGroupNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  /** Defaults for the AI nodes of the body, which may override them. */
  provider: aiShape.provider,
  model: aiShape.model,
  loop_group: loopGroupSchema,
});

export const approvalNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  approval: approvalSchema,
});

export const cancelNodeSchema = z.object({
  ...structuralShape,
  cancel: nonEmpty("'cancel' reason must not be empty"),
});

export const waitNodeSchema = z.object({
  ...structuralShape,
  always_run: outputShape.always_run,
  wait: waitSchema,
});

/** ✚ One write to the run's GitHub issue or pull request, made by the engine (github-writes.ts). */
export const githubNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  retry: retrySchema.optional(),
  github: githubNodeBlockSchema,
});

export const workflowNodeSchema = z.object({
  ...structuralShape,
  ...outputShape,
  /** Lets `$node.output.field` read a child that answers in JSON. */
  output_format: aiShape.output_format,
  workflow: z.string().trim().min(1, "'workflow' must be a non-empty workflow name"),
  /** The child's `$ARGUMENTS`. */
  input: z.string().optional(),
  /** The child's `$INPUTS`. */
  with: withSchema.optional(),
  isolation: z.enum(['inherit', 'worktree']).optional(),
  fan_out: fanOutSchema.optional(),
});

export const includeNodeSchema = z.object({
  ...structuralShape,
  include: z.string().trim().min(1, "'include' must be a non-empty workflow name"),
  /** Values of the included workflow's declared `inputs:`, substituted for its `$INPUTS.<name>` at load time. */
  with: withSchema.optional(),
});

/** The schema of each node mode, keyed by its mode key, in the order errors list them. */
export const nodeModeSchemas = {
  command: commandNodeSchema,
  prompt: promptNodeSchema,
  bash: bashNodeSchema,
  loop: loopNodeSchema,
  loop_group: loopGroupNodeSchema,
  approval: approvalNodeSchema,
  cancel: cancelNodeSchema,
  script: scriptNodeSchema,
  include: includeNodeSchema,
  workflow: workflowNodeSchema,
  wait: waitNodeSchema,
  github: githubNodeSchema,
} as const;
export type NodeMode = keyof typeof nodeModeSchemas;
export const nodeModes = Object.keys(nodeModeSchemas) as NodeMode[];

export type PromptNode = z.infer<typeof promptNodeSchema>;
export type CommandNode = z.infer<typeof commandNodeSchema>;
export type BashNode = z.infer<typeof bashNodeSchema>;
export type ScriptNode = z.infer<typeof scriptNodeSchema>;
export type LoopNode = z.infer<typeof loopNodeSchema>;
export type ApprovalNode = z.infer<typeof approvalNodeSchema>;
export type CancelNode = z.infer<typeof cancelNodeSchema>;
export type WaitNode = z.infer<typeof waitNodeSchema>;
export type GitHubNode = z.infer<typeof githubNodeSchema>;
export type SubWorkflowNode = z.infer<typeof workflowNodeSchema>;
export type IncludeNode = z.infer<typeof includeNodeSchema>;
/** The loop_group body is parsed node by node, so its `nodes` carry parsed nodes. */
export type LoopGroupNode = Omit<z.infer<typeof loopGroupNodeSchema>, 'loop_group'> & {
  loop_group: Omit<z.infer<typeof loopGroupNodeSchema>['loop_group'], 'nodes'> & { nodes: WorkflowNode[] };
};

/** A node as it runs: `include:` nodes have been expanded away at load time. */
export type WorkflowNode =
  | PromptNode
  | CommandNode
  | BashNode
  | ScriptNode
  | LoopNode
  | LoopGroupNode
  | ApprovalNode
  | CancelNode
  | WaitNode
  | GitHubNode
  | SubWorkflowNode;

/** A node as written, before `include:` expansion. */
export type DefinitionNode = WorkflowNode | IncludeNode;

/** Every key a node of any mode may carry; the rest are unknown. */
export const knownNodeKeys: ReadonlySet<string> = new Set(
  Object.values(nodeModeSchemas).flatMap((schema) => Object.keys(schema.shape)),
);
