import { z } from 'zod';

/**
 * What an AI node asks of its provider beyond the prompt and the model: the permission level the
 * agent works at, and the node options of the workflow language (`allowed_tools`, `mcp`, `hooks`
 * ...). The supervisor builds it from the node and the workflow's defaults; it crosses into the
 * worker thread with the attempt and reaches the adapter as `ProviderRequest.options`, which maps
 * each entry onto the provider's own mechanism. Which providers can take which option is declared
 * in the registry (`option-support.ts` reads it); the loader validated the blocks' shapes, so the
 * pass-through blocks are kept loose here.
 */

/**
 * How far an unattended agent may act. `read_only`: it reads and searches, never writes or runs
 * commands that change anything; `workspace` (the default): it edits files in the run's working
 * directory (and the run's artifacts folder) and runs commands there; `full`: no limit at all, it
 * can run anything as the server's user.
 */
export const permissionLevels = ['read_only', 'workspace', 'full'] as const;
export const permissionLevelSchema = z.enum(permissionLevels);
export type PermissionLevel = z.infer<typeof permissionLevelSchema>;
export const DEFAULT_PERMISSION_LEVEL: PermissionLevel = 'workspace';

const hookMatcherSchema = z.object({
  matcher: z.string().optional(),
  response: z.record(z.string(), z.unknown()).optional(),
  command: z.string().optional(),
  timeout: z.number().optional(),
});
export type HookMatcher = z.infer<typeof hookMatcherSchema>;

const agentDefinitionSchema = z.object({
  description: z.string(),
  prompt: z.string(),
  model: z.string().optional(),
  tools: z.array(z.string()).optional(),
  disallowedTools: z.array(z.string()).optional(),
  skills: z.array(z.string()).optional(),
  maxTurns: z.number().optional(),
});
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

/** The node options as written (after the workflow's defaults were applied), without the level. */
export const agentNodeOptionsSchema = z.object({
  /** The tools the model is offered; `[]` offers none. Absent: the provider's default set. */
  allowedTools: z.array(z.string()).optional(),
  /** Tools taken away from the offered set. */
  deniedTools: z.array(z.string()).optional(),
  /** A JSON file of MCP servers, as written (relative to the run's working directory). */
  mcp: z.string().optional(),
  skills: z.array(z.string()).optional(),
  hooks: z.record(z.string(), z.array(hookMatcherSchema)).optional(),
  agents: z.record(z.string(), agentDefinitionSchema).optional(),
  thinking: z.unknown().optional(),
  maxBudgetUsd: z.number().positive().optional(),
  fallbackModel: z.string().optional(),
  betas: z.array(z.string()).optional(),
  sandbox: z.record(z.string(), z.unknown()).optional(),
  settingSources: z.array(z.string()).optional(),
  webSearchMode: z.enum(['disabled', 'cached', 'live']).optional(),
  pi: z.record(z.string(), z.unknown()).optional(),
});
export type AgentNodeOptions = z.infer<typeof agentNodeOptionsSchema>;

/** Everything an adapter is asked beyond prompt and model, fully resolved for one attempt. */
export const agentOptionsSchema = agentNodeOptionsSchema.extend({
  permissions: permissionLevelSchema,
  /**
   * Folders outside the working directory the agent may write at `workspace` (the run's
   * `$ARTIFACTS_DIR`, which lies outside every checkout).
   */
  extraDirs: z.array(z.string()).default([]),
});
export type AgentOptions = z.output<typeof agentOptionsSchema>;
