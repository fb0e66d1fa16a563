import { z } from 'zod';

/** Why a node failed, recorded where the failure is known rather than re-read from prose. */
export const failureKindSchema = z.enum([
  'fatal',
  'transient',
  'unknown',
  'rate_limited',
  'overloaded',
  'timeout',
  'exec_failed',
  'output_contract',
  'max_iterations',
  'child_failed',
  'cancelled',
  'config',
]);
export type FailureKind = z.infer<typeof failureKindSchema>;

export const providerFailureClassSchema = z.enum([
  'auth',
  'quota_exhausted',
  'budget_exceeded',
  'misconfigured',
  'rate_limited',
  'overloaded',
  'transient',
  'unknown',
]);
export type ProviderFailureClass = z.infer<typeof providerFailureClassSchema>;

/** A provider's own account of why a call failed; `evidence` is the text it was classified from. */
export const providerFailureSchema = z.strictObject({
  class: providerFailureClassSchema,
  retryAfterMs: z.number().int().nonnegative().optional(),
  resetAt: z.string().optional(),
  evidence: z.string(),
});
export type ProviderFailure = z.infer<typeof providerFailureSchema>;

export const skipReasonSchema = z.enum([
  'prior_success',
  'when_condition',
  'when_condition_parse_error',
  'trigger_rule',
  'timeout',
]);
export type SkipReason = z.infer<typeof skipReasonSchema>;

/** The typed cause of a skip; `origin` names the upstream node whose state caused it. */
export const skipCauseSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('condition'), expr: z.string() }),
  z.strictObject({ kind: z.literal('condition_parse_error'), expr: z.string() }),
  z.strictObject({ kind: z.literal('timeout') }),
  z.strictObject({ kind: z.literal('upstream_failed'), origin: z.string() }),
  z.strictObject({ kind: z.literal('upstream_skipped'), origin: z.string() }),
]);
export type SkipCause = z.infer<typeof skipCauseSchema>;
export type SkipCauseKind = SkipCause['kind'];

export const suspensionPointSchema = z.enum([
  'approval',
  'interactive_loop',
  'writeback',
  'child_workflow',
  'fan_out',
  'wait',
]);
export type SuspensionPoint = z.infer<typeof suspensionPointSchema>;

export const startedLifecycleSchema = z.strictObject({ status: z.literal('started') });
export const completedLifecycleSchema = z.strictObject({ status: z.literal('completed') });
export const failedLifecycleSchema = z.strictObject({
  status: z.literal('failed'),
  error: z.string(),
  /** Present only as `false`: the failure must not be retried. Absent means "retry policy decides". */
  retryable: z.literal(false).optional(),
  failureKind: failureKindSchema.optional(),
  providerFailure: providerFailureSchema.optional(),
});
export const skippedLifecycleSchema = z.strictObject({
  status: z.literal('skipped'),
  reason: skipReasonSchema,
  cause: skipCauseSchema,
});
export const suspendedLifecycleSchema = z.strictObject({
  status: z.literal('suspended'),
  point: suspensionPointSchema,
});

export const lifecycleSchema = z.discriminatedUnion('status', [
  startedLifecycleSchema,
  completedLifecycleSchema,
  failedLifecycleSchema,
  skippedLifecycleSchema,
  suspendedLifecycleSchema,
]);
export type Lifecycle = z.infer<typeof lifecycleSchema>;
export type LifecycleStatus = Lifecycle['status'];
export type FailedLifecycle = z.infer<typeof failedLifecycleSchema>;
export type SkippedLifecycle = z.infer<typeof skippedLifecycleSchema>;

export const lifecycleStatuses: readonly LifecycleStatus[] = lifecycleSchema.options.map((o) => o.shape.status.value);
