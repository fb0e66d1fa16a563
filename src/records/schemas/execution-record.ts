import { z } from 'zod';
import { checkoutObservationSchema } from './checkout-observation.js';
import { measuredSchema } from './measured-value.js';
import { nodeDescriptorSchema } from './node-descriptor.js';
import { permissionLevelSchema } from '../../shared/providers/agent-options.js';
import { lifecycleSchema } from './node-lifecycle.js';
import { outputSchema } from './node-output.js';
import { spendSchema } from './node-spend.js';

/**
 * The per-node execution record (contract: Node Execution Records). Every object is strict: a
 * key the contract does not name is a bug in the writer, not extra information. Readers of
 * persisted rows tolerate keys added by newer versions (see records/parse-tolerant.ts).
 */

const timestamp = z.string().min(1);

/** One enclosing loop group and the iteration of it this invocation belongs to. */
export const loopFrameSchema = z.strictObject({ groupId: z.string(), iteration: z.number().int().nonnegative() });
export type LoopFrame = z.infer<typeof loopFrameSchema>;

/**
 * A logical execution of a node. Retries are further attempts of the same invocation; its
 * checkout observation is taken at the first attempt and kept by later attempts and resumes.
 */
export const invocationSchema = z.strictObject({
  id: z.string().min(1),
  startedAt: timestamp,
  loopPath: z.array(loopFrameSchema),
  checkoutStart: checkoutObservationSchema.optional(),
});
export type Invocation = z.infer<typeof invocationSchema>;

/** One attempt within an invocation; each attempt may sample the checkout again. */
export const attemptSchema = z.strictObject({
  id: z.string().min(1),
  startedAt: timestamp,
  checkoutStart: checkoutObservationSchema.optional(),
});
export type Attempt = z.infer<typeof attemptSchema>;

export const tierSchema = z.enum(['small', 'medium', 'large']);
export type Tier = z.infer<typeof tierSchema>;

export const effortSchema = z.enum(['minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'ultra', 'persistent']);
export type Effort = z.infer<typeof effortSchema>;

export const sessionOriginSchema = z.enum(['fresh', 'resumed', 'resume-failed-cold']);
export type SessionOrigin = z.infer<typeof sessionOriginSchema>;

/**
 * Provider and model facts. The requested model is never substituted for an unreported
 * resolved one; `sessionPreview` is for display and is not a resume token.
 */
export const bindingSchema = z.strictObject({
  provider: z.string().optional(),
  model: z
    .strictObject({
      requested: z.string().optional(),
      resolved: measuredSchema(z.string()),
    })
    .optional(),
  tier: tierSchema.optional(),
  effort: effortSchema.optional(),
  sessionPreview: z.string().optional(),
  sessionOrigin: sessionOriginSchema.optional(),
  /** ✚ The permission level an AI attempt's agent worked at (`read_only`, `workspace`, `full`). */
  permissions: permissionLevelSchema.optional(),
});
export type Binding = z.infer<typeof bindingSchema>;

export const timingSchema = z.strictObject({
  startedAt: timestamp,
  durationMs: z.number().nonnegative().optional(),
});
export type Timing = z.infer<typeof timingSchema>;

/**
 * Whose spend a record carries. `node`: its own. `aggregate`: a roll-up restating its members'
 * rows. `instance`: a composed instance's total, authoritative for that instance's scope.
 * `amendment`: a row restating spend earlier rows of the same node already carried.
 */
export const accountingSchema = z.enum(['node', 'aggregate', 'instance', 'amendment']);
export type Accounting = z.infer<typeof accountingSchema>;

export const mcpUnavailableSchema = z.strictObject({
  path: z.string(),
  reason: z.enum(['provider_unsupported', 'config_missing']),
  servers: z.array(z.string()).optional(),
});

/** Extra observations. They persist, but being readable does not mean they drive resume. */
export const diagnosticsSchema = z.strictObject({
  iteration: z.number().optional(),
  loopIterations: z.number().optional(),
  maxIterations: z.number().optional(),
  ordinal: z.number().optional(),
  outputType: z.string().optional(),
  command: z.string().optional(),
  status: z.string().optional(),
  sessionSourceNodeId: z.string().optional(),
  childRunId: z.string().optional(),
  blockedOnChildRunId: z.string().optional(),
  identity: z.string().optional(),
  approvalDecision: z.string().optional(),
  expr: z.string().optional(),
  sessionForkRequested: z.boolean().optional(),
  sessionForked: z.boolean().optional(),
  fanOut: z.boolean().optional(),
  backgroundTasksIncomplete: z.array(z.string()).optional(),
  mcpUnavailable: mcpUnavailableSchema.optional(),
  /**
   * ✚ An AI attempt's tool calls: how many results came back, how many failed when they ran, and
   * how many the provider refused (a permission level, a denied tool, a sandbox), with the first
   * refusals' tools and texts. A node whose writes were all refused says so here, not by failing.
   */
  toolCalls: z
    .strictObject({
      total: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
      refused: z.number().int().nonnegative(),
      refusals: z.array(z.strictObject({ tool: z.string().optional(), reason: z.string() })).optional(),
    })
    .optional(),
  /**
   * ✚ An AI attempt on a provider that does not enforce `output_format`: why each answer that
   * was asked again did not match the schema, in order (the attempt's spend includes every call).
   */
  structuredReasks: z.array(z.string()).optional(),
  /**
   * ✚ An AI attempt whose CLI wrote lines its reader could not read (not JSON, not an event, or
   * a known event with a field of the wrong shape): how many, and the first with why. The lines
   * it did read were read as usual.
   */
  unreadableLines: z.strictObject({ count: z.number().int().positive(), first: z.string() }).optional(),
});
export type Diagnostics = z.infer<typeof diagnosticsSchema>;

const metadataShape = {
  runId: z.string().min(1),
  /** Location of the node in the run, including composed structure (records/node-path.ts). */
  path: z.string().min(1),
  node: nodeDescriptorSchema,
  invocation: invocationSchema,
  attempt: attemptSchema,
  binding: bindingSchema,
  timing: timingSchema,
  spend: spendSchema,
  accounting: accountingSchema,
  lifecycle: lifecycleSchema,
};

/**
 * The shared public metadata, used by the live emitter and the JSONL transcript: the record
 * without output, diagnostics or the full session id.
 */
export const executionMetadataSchema = z.strictObject(metadataShape);
export type ExecutionMetadata = z.infer<typeof executionMetadataSchema>;

/** The full execution record of one node attempt's state. */
export const executionRecordSchema = z.strictObject({
  ...metadataShape,
  output: outputSchema.optional(),
  diagnostics: diagnosticsSchema.optional(),
  sessionId: z.string().optional(),
});
export type ExecutionRecord = z.infer<typeof executionRecordSchema>;

/** Top-level groups of the record; the first ten are required. */
export const executionRecordGroups = executionRecordSchema.keyof().options;
export const executionMetadataGroups = executionMetadataSchema.keyof().options;
