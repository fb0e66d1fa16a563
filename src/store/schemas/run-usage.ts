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

/** What the engine counted so far, so that one more attempt folds in without reading the log. */
export const runTotalsCountedSchema = z.strictObject({
  /**
   * Rows folded in: the attempts' own-scope terminal (or suspended) records that reported
   * something (tokens, cost, or tokens known to be incomplete); a row that reported nothing
   * (every bash and script attempt) changes no total and is not folded in.
   */
  rows: z.number().int().nonnegative(),
  /** Of those, rows that reported tokens; and tokens with each cache axis. */
  token_rows: z.number().int().nonnegative(),
  cache_read_rows: z.number().int().nonnegative(),
  cache_write_rows: z.number().int().nonnegative(),
  /** A row said its cache figures were partial. */
  cache_flagged: z.literal(true).optional(),
});

/**
 * `metadata.totals`: the run's usage, kept by the engine as each attempt ends (in the
 * transaction that writes the attempt's end), across retries, take-overs and resumes. The
 * `total_*` keys are those of RunTotals (also mirrored at the top of the metadata).
 */
export const runTotalsStateSchema = runTotalsSchema.extend({ counted: runTotalsCountedSchema });
export type RunTotalsState = z.infer<typeof runTotalsStateSchema>;

/**
 * The spend one node event adds to its run's totals, as the engine read it from the event's
 * record (records/run-totals-fold.ts, countedUsageOf). It rides on the event to the store
 * (NewRunEvent.adds_to_totals), which folds it in the transaction that writes the event, and
 * only when the event is written: the store never reads a record itself.
 */
export const runTotalsAdditionSchema = z.strictObject({
  /** Tokens as the provider reported them (other keys of the reported usage are ignored). */
  tokens: z
    .object({
      input: z.number().nonnegative(),
      output: z.number().nonnegative(),
      cacheRead: z.number().nonnegative().optional(),
      cacheWrite: z.number().nonnegative().optional(),
      cachePartial: z.literal(true).optional(),
    })
    .optional(),
  /** The row's tokens are unavailable for good (`incomplete`): the token totals go. */
  tokensIncomplete: z.literal(true).optional(),
  costUsd: z.number().nonnegative().optional(),
  costPartial: z.literal(true).optional(),
});
export type RunTotalsAddition = z.infer<typeof runTotalsAdditionSchema>;
