import { z } from 'zod';
import { permissionLevels } from '../../shared/providers/agent-options.js';
import { isValidCommandName } from './command-name.js';

/**
 * Schemas for the nested blocks a workflow node may carry (`retry:`, `loop:`, `approval:`,
 * `fan_out:`, `wait:`, `hooks:`, `agents:` ...). Objects strip unknown keys; the loader reports
 * each stripped key as a parse warning (see `unknown-keys.ts`). `hooks:` is strict on purpose:
 * a misspelt hook event would silently never fire, so it is an error, as upstream.
 */

export const triggerRuleSchema = z.enum(['all_success', 'one_success', 'none_failed_min_one_success', 'all_done']);
export type TriggerRule = z.infer<typeof triggerRuleSchema>;

/** Session threading for an AI node: a fresh session, the shared one, or another node's. */
export const contextSchema = z.union([
  z.enum(['fresh', 'shared']),
  z.object({ resume: z.string().min(1, "'context.resume' must name a node") }),
]);

export const thinkingSchema = z.union([
  z.enum(['adaptive', 'enabled', 'disabled']),
  z.looseObject({
    type: z.enum(['adaptive', 'enabled', 'disabled']),
    budgetTokens: z.number().int().positive().optional(),
  }),
]);

/** ✚ The permission level of an AI node or, at the top, of every AI node of the workflow. */
export const permissionsSchema = z.enum(permissionLevels, {
  error: (issue) => `'permissions' must be one of ${permissionLevels.join(', ')}, not '${String(issue.input)}'`,
});

/** Provider sandbox settings are passed through as written (the provider validates them). */
export const sandboxSchema = z.record(z.string(), z.unknown());

/** A node's JSON Schema for structured output; kept as written. */
export const outputFormatSchema = z.record(z.string(), z.unknown());

export const retrySchema = z.object({
  /** Total attempts, the first one included. */
  max_attempts: z.number().int().min(1).max(5),
  delay_ms: z.number().int().min(1000).max(60_000).optional(),
  on_error: z.enum(['transient', 'all']).optional(),
});
export type RetryConfig = z.infer<typeof retrySchema>;
export const DEFAULT_RETRY_DELAY_MS = 3000;

const kebabCase = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export const approvalSchema = z
  .object({
    message: z.string().trim().min(1, "'approval.message' must not be empty"),
    capture_response: z.boolean().optional(),
    on_reject: z
      .object({
        /** The rework, read by a model: the reviewer's reason is `$REJECTION_REASON`. */
        prompt: z.string().trim().min(1, "'approval.on_reject.prompt' must not be empty").optional(),
        /** Cairn: a shell rework instead of a prompt (the reason reaches it as `$REJECTION_REASON`). */
        bash: z.string().trim().min(1, "'approval.on_reject.bash' must not be empty").optional(),
        max_attempts: z.number().int().min(1).max(10).optional(),
      })
      .optional(),
    decisions: z
      .array(
        z.object({
          id: z.string().regex(kebabCase, 'decision ids must be kebab-case (a-z, 0-9, hyphen)'),
          label: z.string().optional(),
        }),
      )
      .min(1)
      .optional(),
  })
  .superRefine((block, ctx) => {
    if (block.decisions && !block.decisions.some((d) => d.id === 'approve')) {
      ctx.addIssue({ code: 'custom', path: ['decisions'], message: "'approval.decisions' must include 'approve'" });
    }
    if (block.on_reject && (block.on_reject.prompt === undefined) === (block.on_reject.bash === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['on_reject'],
        message: "'approval.on_reject' needs exactly one of 'prompt' (a rework by a model) or 'bash' (a shell rework)",
      });
    }
    if (block.decisions && block.on_reject) {
      ctx.addIssue({
        code: 'custom',
        path: ['decisions'],
        message: "'approval.decisions' and 'approval.on_reject' are mutually exclusive",
      });
    }
  });
export const DEFAULT_ON_REJECT_MAX_ATTEMPTS = 3;

/** Iteration control shared by `loop:` and `loop_group:`. */
const loopControlShape = {
  max_iterations: z.number().int().positive("'max_iterations' must be a positive integer"),
  until: z.string().trim().min(1).optional(),
  until_bash: z.string().trim().min(1).optional(),
  interactive: z.boolean().optional(),
  gate_message: z.string().optional(),
  signal_completes: z.boolean().optional(),
};

function checkLoopControl(
  block: { interactive?: boolean | undefined; gate_message?: string | undefined },
  ctx: z.RefinementCtx,
  name: 'loop' | 'loop_group',
): void {
  if (block.interactive === true && !block.gate_message?.trim()) {
    ctx.addIssue({
      code: 'custom',
      path: ['gate_message'],
      message: `interactive ${name === 'loop' ? 'loop' : 'loop_group'} requires '${name}.gate_message' (non-empty string)`,
    });
  }
}

export const loopSchema = z
  .object({
    ...loopControlShape,
    prompt: z.string().optional(),
    command: z.string().trim().optional(),
    /** Cairn: a shell body instead of a prompt (it reads `$LOOP_PREV_OUTPUT` and `$LOOP_USER_INPUT` from the environment). */
    bash: z.string().optional(),
    until_field: z.string().trim().min(1).optional(),
    fresh_context: z.boolean().optional(),
  })
  .superRefine((block, ctx) => {
    const hasPrompt = (block.prompt ?? '').trim() !== '';
    const hasCommand = (block.command ?? '') !== '';
    const hasBash = (block.bash ?? '').trim() !== '';
    const bodies = [hasPrompt, hasCommand, hasBash].filter(Boolean).length;
    if (bodies !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          bodies > 1
            ? "'loop.prompt', 'loop.command' and 'loop.bash' are mutually exclusive"
            : "loop needs 'loop.prompt' (inline), 'loop.command' (a command file) or 'loop.bash' (a shell body)",
      });
    }
    if (hasCommand && !isValidCommandName(block.command ?? '')) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: `invalid command name "${block.command ?? ''}"` });
    }
    if (!block.until && !block.until_bash && !block.until_field) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: "loop needs a completion condition: 'loop.until', 'loop.until_bash' or 'loop.until_field'",
      });
    }
    checkLoopControl(block, ctx, 'loop');
  });
export type LoopBlock = z.infer<typeof loopSchema>;

/** The `loop_group:` block; `nodes` is parsed node by node by the loader (see `parse-node.ts`). */
export const loopGroupSchema = z
  .object({
    ...loopControlShape,
    nodes: z.array(z.unknown()).min(1, "'loop_group.nodes' must have at least one node"),
  })
  .superRefine((block, ctx) => {
    if (!block.until && !block.until_bash) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: "loop_group needs a completion condition: 'loop_group.until' or 'loop_group.until_bash'",
      });
    }
    checkLoopControl(block, ctx, 'loop_group');
  });

export const fanOutSchema = z.object({
  /** A `$node.output[.field]` reference, or a literal JSON array. */
  items: z.string().trim().min(1, "'fan_out.items' must reference a node output that produces a JSON array"),
  as: z.string().optional(),
  max_parallel: z.number().int().min(1, "'fan_out.max_parallel' must be >= 1").optional(),
  /**
   * Cairn: how the items run. `in_run`: as instances inside this run (no run row per item);
   * `child_runs`: one child run each. Default: `in_run` when the child workflow has only
   * bash/script nodes, `isolation` is not `worktree` and neither `with` nor `as` is given.
   */
  mode: z.enum(['in_run', 'child_runs'], { error: "'fan_out.mode' must be 'in_run' or 'child_runs'" }).optional(),
  join: z
    .enum(['all_success', 'all_done', 'first_success'])
    .refine((join) => join !== 'first_success', {
      message: "'fan_out.join: first_success' is not supported yet; use 'all_success' or 'all_done'",
    })
    .optional(),
});
export type FanOutConfig = z.infer<typeof fanOutSchema>;
export const DEFAULT_FAN_OUT_MAX_PARALLEL = 5;

/**
 * `wait:` (Cairn's own node; the contract's `wait` kind). The run suspends at this node
 * (suspension point `wait`) until a duration has passed or a moment has come, then the node
 * completes with an empty output. Exactly one of `duration_ms` or `until`.
 */
export const waitSchema = z
  .object({
    duration_ms: z.number().int().positive("'wait.duration_ms' must be a positive integer (ms)").optional(),
    /** An ISO-8601 timestamp with a time zone, or a `$node.output[.field]` reference resolving to one. */
    until: z.string().trim().min(1).optional(),
    message: z.string().optional(),
  })
  .superRefine((block, ctx) => {
    if ((block.duration_ms === undefined) === (block.until === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: "wait needs exactly one of 'wait.duration_ms' or 'wait.until'",
      });
    }
    if (block.until !== undefined && !block.until.includes('$') && Number.isNaN(Date.parse(block.until))) {
      ctx.addIssue({
        code: 'custom',
        path: ['until'],
        message: `'wait.until' must be an ISO-8601 timestamp (e.g. 2030-01-01T09:00:00Z), got '${block.until}'`,
      });
    }
  });
export type WaitBlock = z.infer<typeof waitSchema>;

export const hookEventNames = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Notification',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PermissionRequest',
] as const;

const hookMatcherSchema = z
  .strictObject({
    matcher: z.string().optional(),
    response: z.record(z.string(), z.unknown()).optional(),
    command: z.string().min(1).optional(),
    timeout: z.number().positive().optional(),
  })
  .refine((m) => (m.response === undefined) !== (m.command === undefined), {
    message: "a hook needs exactly one of 'response' or 'command'",
  });

export const hooksSchema = z.strictObject(
  Object.fromEntries(hookEventNames.map((event) => [event, z.array(hookMatcherSchema).optional()])) as Record<
    (typeof hookEventNames)[number],
    z.ZodOptional<z.ZodArray<typeof hookMatcherSchema>>
  >,
);

const agentDefinitionSchema = z.object({
  description: z.string().min(1, "'description' is required"),
  prompt: z.string().min(1, "'prompt' is required"),
  model: z.string().min(1).optional(),
  tools: z.array(z.string().min(1)).optional(),
  disallowedTools: z.array(z.string().min(1)).optional(),
  skills: z.array(z.string().min(1)).optional(),
  maxTurns: z.number().int().positive().optional(),
});

export const agentsSchema = z.record(z.string(), agentDefinitionSchema).superRefine((agents, ctx) => {
  const ids = Object.keys(agents);
  if (ids.length === 0) ctx.addIssue({ code: 'custom', path: [], message: "'agents' must have at least one entry" });
  for (const id of ids) {
    if (!kebabCase.test(id)) {
      ctx.addIssue({ code: 'custom', path: [id], message: `agent ids must be kebab-case (a-z, 0-9, hyphen): '${id}'` });
    }
  }
});

/** Per-node settings for the Pi provider. */
export const piSchema = z.object({
  enableExtensions: z.boolean().optional(),
  interactive: z.boolean().optional(),
  extensionFlags: z.record(z.string(), z.union([z.boolean(), z.string()])).optional(),
});

/**
 * Values bound by `with:` (a child workflow's or a command's `$INPUTS`): text (references filled
 * in), or a literal number, boolean, list or map, which a child receives as it is (typed inputs).
 */
const withValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.json()), z.record(z.string(), z.json())]);
export type WithValue = z.infer<typeof withValueSchema>;
export const withSchema = z.record(z.string(), withValueSchema);
