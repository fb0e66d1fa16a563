import { z } from 'zod';
import { measuredSchema, unavailableSchema } from './measured-value.js';

/**
 * Measured usage of one attempt. zod's `number()` already refuses NaN and ±Infinity, so a
 * non-finite provider number can only be recorded as `unavailable: invalid`.
 */

const amount = z.number().nonnegative();

/** Token usage as the provider reported it. `cachePartial` says the cache axes are a floor. */
export const tokenUsageSchema = z.strictObject({
  input: amount,
  output: amount,
  cacheRead: amount.optional(),
  cacheWrite: amount.optional(),
  total: amount.optional(),
  cost: amount.optional(),
  cachePartial: z.literal(true).optional(),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** Cost in USD; `partial: true` when the provider says the figure misses some nested usage. */
export const costUsdSchema = z.discriminatedUnion('source', [
  z.strictObject({ source: z.literal('provider'), value: amount, partial: z.literal(true).optional() }),
  unavailableSchema,
]);

export const spendSchema = z.strictObject({
  tokens: measuredSchema(tokenUsageSchema),
  costUsd: costUsdSchema,
  stopReason: measuredSchema(z.string()),
  numTurns: measuredSchema(amount),
});
export type Spend = z.infer<typeof spendSchema>;
export type SpendKey = keyof Spend;
export const spendKeys = spendSchema.keyof().options;
