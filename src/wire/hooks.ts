import { z } from 'zod';
import { hookDeliverySchema, hookSchema, hookSignatureSchema } from '../store/schemas/hook.js';

/** `/api/hooks`: the HTTP shapes, shared by the API and `cairn hooks`. */

/** Shorter secrets are refused: an HMAC key of a few characters can be guessed offline from one signed delivery. */
export const MIN_SECRET_LENGTH = 16;

export const hookNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'name: 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit');

export const createHookBodySchema = z.strictObject({
  name: hookNameSchema,
  workflow: z.string().trim().min(1).describe('The workflow to run, found as a run request finds it (the codebase’s project first)'),
  codebaseId: z.string().min(1).optional().describe('A registered codebase the runs work on (each in its own worktree)'),
  signature: hookSignatureSchema.describe('How the sender signs: github (X-Hub-Signature-256) or generic (X-Cairn-Timestamp + X-Cairn-Signature)'),
  secret: z
    .string()
    .min(MIN_SECRET_LENGTH, `secret: at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -hex 32)`)
    .max(1024)
    .describe('The HMAC key the sender signs with; stored sealed with the install key, never shown back'),
  inputs: z
    .record(z.string(), z.string())
    .optional()
    .describe('Workflow input -> path into the JSON payload: $ then .name and [n] steps, e.g. $.pull_request.number'),
});
export type CreateHookBody = z.infer<typeof createHookBodySchema>;

export const hookParamsSchema = z.object({ name: z.string().min(1).max(100).describe('The hook’s name') });


export const hookDeleteResponseSchema = z.object({ deleted: z.literal(true), name: z.string() });

export const deliveryResponseSchema = z.object({
  runId: z.string().describe('The run the delivery started; for a delivery sent again, the run its first sending started'),
  deliveryId: z.string(),
  duplicate: z.boolean().describe('True (status 200) when this delivery id was admitted before: no second run was started'),
});
export type DeliveryResponse = z.infer<typeof deliveryResponseSchema>;

/** A page of `GET /api/hooks/{name}/deliveries`: at most this many deliveries. */
export const HOOK_DELIVERIES_MAX_LIMIT = 100;
export const HOOK_DELIVERIES_DEFAULT_LIMIT = 20;

export const hookDeliveriesQuerySchema = z.object({
  limit: z.coerce
    .number({ error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .int({ error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .min(1, { error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .max(HOOK_DELIVERIES_MAX_LIMIT, { error: `limit must be an integer from 1 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .optional()
    .describe(`Deliveries per page (default ${HOOK_DELIVERIES_DEFAULT_LIMIT}, at most ${HOOK_DELIVERIES_MAX_LIMIT})`),
  offset: z.coerce
    .number({ error: 'offset must be a non-negative integer' })
    .int({ error: 'offset must be a non-negative integer' })
    .min(0, { error: 'offset must be a non-negative integer' })
    .optional()
    .describe('Deliveries to skip, newest first (default 0)'),
});

export const hookDeliveryListResponseSchema = z.object({
  deliveries: z.array(hookDeliverySchema).describe('Newest first: each admitted delivery id, the run it started and when it was received'),
  total: z.number().int().nonnegative().describe('How many deliveries the hook has admitted in all'),
});
export type HookDeliveryList = z.infer<typeof hookDeliveryListResponseSchema>;

/** `GET /api/hooks?deliveries=N`: each hook with its latest N deliveries, read with the list (one request, no race with a removal). */
export const hookListQuerySchema = z.object({
  deliveries: z.coerce
    .number({ error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .int({ error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .min(0, { error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .max(HOOK_DELIVERIES_MAX_LIMIT, { error: `deliveries must be an integer from 0 to ${HOOK_DELIVERIES_MAX_LIMIT}` })
    .optional()
    .describe(`With each hook, its latest this many deliveries and their total (default 0: none)`),
});

export const hookListResponseSchema = z.object({
  hooks: z.array(
    hookSchema.extend({
      deliveries: hookDeliveryListResponseSchema.optional().describe('With ?deliveries=N: the hook’s latest N deliveries, newest first, and their total'),
    }),
  ),
});
