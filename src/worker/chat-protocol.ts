import { z } from 'zod';
import { providerFailureClassSchema } from '../records/schemas/node-lifecycle.js';
import { providerIdSchema } from '../shared/providers/registry.js';
import { storeConfigSchema } from '../store/store-config.js';
import { agentAttemptTaskSchema } from './nodes/agent/agent-task.js';

/**
 * A chat turn's call to the default assistant, run in a worker thread through the same adapter
 * and watchdogs as an AI node's attempt. The thread streams the answer's text into the
 * conversation's event log itself (`text` events, batched) and returns the whole answer.
 */
export const chatCallTaskSchema = z.object({
  kind: z.literal('chat'),
  store: storeConfigSchema,
  /** The conversation's platform id: where the `text` events go. */
  conversationId: z.string(),
  /** Names the call (the chat turn's job) in its session key and scratch folder. */
  turnId: z.string(),
  provider: providerIdSchema,
  model: z.string().optional(),
  prompt: z.string(),
  systemPrompt: z.string(),
  /** Where a CLI assistant runs: the conversation's project, else the service home. */
  cwd: z.string(),
  /** Holds the credential: never logged, never recorded. */
  connection: agentAttemptTaskSchema.shape.connection,
  /** Masked in the answer before it is streamed or stored, as for a node's attempt. */
  secrets: agentAttemptTaskSchema.shape.secrets,
  firstEventTimeoutMs: z.number().int().positive(),
  idleTimeoutMs: z.number().int().positive(),
  /** A folder of this call's own (a CLI's prompt file); removed when the call ends. */
  scratchDir: z.string(),
  /** Streamed text is written once this many characters wait, or this long after the first waits. */
  flush: z.object({ chars: z.number().int().positive(), ms: z.number().int().positive() }),
});
export type ChatCallTask = z.input<typeof chatCallTaskSchema>;

export const chatCallResultSchema = z.object({
  status: z.enum(['completed', 'failed']),
  /** The whole answer (for a failure, what arrived before it). */
  text: z.string(),
  /** Whether any `text` event was written for this call. */
  streamed: z.boolean(),
  /** The end of the answer that was not written yet: the caller sends it with the stored message. */
  tail: z.string(),
  error: z.string().optional(),
  /** The provider failure class, or `timeout` when a watchdog stopped the call. */
  failureClass: z.union([providerFailureClassSchema, z.literal('timeout')]).optional(),
  resolvedModel: z.string().optional(),
});
export type ChatCallResult = z.infer<typeof chatCallResultSchema>;
