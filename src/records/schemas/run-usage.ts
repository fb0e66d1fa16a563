import { z } from 'zod';

/**
 * `own`: the row's `cost_usd` is spend of that row alone. `total`: it restates spend other rows
 * carry (a roll-up or an instance total), so summing every row double-counts. A projection
 * added by the API, never a stored field.
 */
export const costScopeSchema = z.enum(['own', 'total']);
export type CostScope = z.infer<typeof costScopeSchema>;

/**
 * Run-level usage, kept in the run's metadata. A key is absent (never 0) when nothing was
 * reported for it; token keys are also absent when a counted row's tokens were `incomplete`,
 * and then `total_tokens_incomplete` is true.
 */
export const runTotalsSchema = z.strictObject({
  total_cost_usd: z.number().nonnegative().optional(),
  total_tokens_in: z.number().nonnegative().optional(),
  total_tokens_out: z.number().nonnegative().optional(),
  total_cache_read_tokens: z.number().nonnegative().optional(),
  total_cache_write_tokens: z.number().nonnegative().optional(),
  /** The cache totals are a floor: some counted row reported tokens without that cache axis. */
  total_cache_partial: z.literal(true).optional(),
  /** Cairn addition: tokens were spent that no provider could count, so token totals are absent. */
  total_tokens_incomplete: z.literal(true).optional(),
});
export type RunTotals = z.infer<typeof runTotalsSchema>;
export const runTotalsKeys = runTotalsSchema.keyof().options;
