import { z } from 'zod';
import { effortSchema } from '../../../records/schemas/execution-record.js';
import { agentOptionsSchema } from '../../../shared/providers/agent-options.js';
import { providerIdSchema } from '../../../shared/providers/registry.js';
import { attemptTaskShape } from '../../attempt-protocol.js';

/** One attempt of an AI node (`prompt` / `command`), its prompt substituted and its binding resolved. */
export const agentAttemptTaskSchema = z.object({
  ...attemptTaskShape,
  kind: z.literal('agent'),
  /** `inline` for a prompt node, `command` (with its file's name) for a command node. */
  source: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('inline') }),
    z.object({ kind: z.literal('command'), name: z.string() }),
  ]),
  prompt: z.string(),
  provider: providerIdSchema,
  /** The model asked for, as resolved from node, workflow and config; absent: the provider's default. */
  model: z.string().optional(),
  effort: effortSchema.optional(),
  outputFormat: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.string().optional(),
  /** The permission level and the node's provider options (shared/providers/agent-options.ts). */
  options: agentOptionsSchema,
  /** How to reach the provider. Holds the credential: never logged, never recorded. */
  connection: z.object({
    baseUrl: z.string().optional(),
    apiKey: z.string().optional(),
    /** A subscription login's bearer token (Anthropic), in place of apiKey. */
    authToken: z.string().optional(),
    binaryPath: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
  }),
  /**
   * Masked in everything the provider says before it is recorded, streamed or logged: the keys
   * of `connection`, the run's sealed `config.env` values and the install's configured secrets
   * (shared/secret-mask.ts). Never logged, never recorded.
   */
  secrets: z.array(z.string()).default([]),
  /** The session to continue: a retry's own, a loop's previous iteration's, or a source node's (private: never logged or recorded). */
  resumeSessionId: z.string().optional(),
  /** Set when the session to continue is another node's (`context: shared` / `{ resume }`): that node, and whether to fork it. */
  sessionSource: z.object({ nodeId: z.string(), fork: z.boolean() }).optional(),
  /** A folder kept across the node's attempts in this run, for a CLI's own session store. */
  sessionDir: z.string().optional(),
  /** The first-event watchdog: no chunk from the provider this long after the start fails the attempt. */
  firstEventTimeoutMs: z.number().int().positive(),
  /** The idle watchdog: no chunk for this long after the first fails the attempt. */
  idleTimeoutMs: z.number().int().positive(),
  outputSpillDir: z.string(),
  /** The attempt's own folder (its prompt file), under the run's artifacts. */
  scratchDir: z.string(),
});
export type AgentAttemptTask = z.input<typeof agentAttemptTaskSchema>;
