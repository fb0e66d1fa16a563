import { z } from 'zod';

/**
 * Why a measured value is missing. Absence never becomes zero:
 * - `unsupported`: the provider declares no support.
 * - `not_reported`: support is declared but no value arrived.
 * - `unknown`: support is undeclared.
 * - `not_applicable`: no provider call happened (no provider, or the attempt failed before it).
 * - `invalid`: a rejected token observation or a non-finite number.
 * - `incomplete`: the provider signalled `tokensUnknown` (a paid interval cannot be counted).
 */
export const unavailableReasonSchema = z.enum([
  'unsupported',
  'not_reported',
  'unknown',
  'not_applicable',
  'invalid',
  'incomplete',
]);
export type UnavailableReason = z.infer<typeof unavailableReasonSchema>;

/** A measurement with no value. Strict: an unavailable measurement never carries a `value`. */
export const unavailableSchema = z.strictObject({
  source: z.literal('unavailable'),
  reason: unavailableReasonSchema,
});
export type Unavailable = z.infer<typeof unavailableSchema>;

/** `source: provider` with the reported value (a genuine zero is a value), or `unavailable`. */
export function measuredSchema<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion('source', [z.strictObject({ source: z.literal('provider'), value }), unavailableSchema]);
}

/** A measured value of type T, as `measuredSchema(T)` parses it. */
export type Measured<T> = { source: 'provider'; value: T } | Unavailable;
