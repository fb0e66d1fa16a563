import type { NewRunEvent } from '../store/schemas/event.js';
import { statusOfEventType } from './event-types.js';
import { spendSchema } from './schemas/node-spend.js';
import { accountingSchema } from './schemas/execution-record.js';
import { runTotalsKeys, type RunTotals, type RunTotalsState } from '../store/schemas/run-usage.js';
import type { UsageObservation } from './read-node-event.js';

/**
 * The spend one node event adds to its run's totals, or undefined when it adds nothing to count:
 * a row of the node's own spend (`accounting: node`) that consumed something (completed,
 * failed, suspended), as computeRunTotals counts them. Roll-ups and instance totals restate
 * rows counted already; cache records add no spend. Only the `spend` and `accounting` groups are
 * read (the record was validated when it was built).
 */
export function countedUsageOf(event: Pick<NewRunEvent, 'event_type' | 'step_name' | 'data'>): UsageObservation | undefined {
  if (event.step_name === null) return undefined;
  const status = statusOfEventType(event.event_type);
  if (status !== 'completed' && status !== 'failed' && status !== 'suspended') return undefined;
  const execution = event.data.execution as { accounting?: unknown; spend?: unknown } | undefined;
  if (execution === undefined || accountingSchema.safeParse(execution.accounting).data !== 'node') return undefined;
  const spend = spendSchema.safeParse(execution.spend);
  if (!spend.success) return {};
  const { tokens, costUsd } = spend.data;
  const usage: UsageObservation = {};
  if (tokens.source === 'provider') usage.tokens = tokens.value;
  else if (tokens.reason === 'incomplete') usage.tokensIncomplete = true;
  if (costUsd.source === 'provider') {
    usage.costUsd = costUsd.value;
    if (costUsd.partial === true) usage.costPartial = true;
  }
  return usage;
}

/**
 * Folds one counted row into the run's totals (accounting rules 1-3, as sumUsage sums them):
 * cost always accumulates; a `tokensUnknown` row makes the token totals unavailable for good
 * (absent, `total_tokens_incomplete`); a key stays absent until some row reports it.
 */
export function addToRunTotals(previous: RunTotalsState | undefined, usage: UsageObservation): RunTotalsState {
  const next: RunTotalsState = { ...previous, counted: { ...(previous?.counted ?? { rows: 0, token_rows: 0, cache_read_rows: 0, cache_write_rows: 0 }) } };
  const counted = next.counted;
  counted.rows += 1;
  if (usage.costUsd !== undefined) next.total_cost_usd = (next.total_cost_usd ?? 0) + usage.costUsd;
  if (usage.tokensIncomplete) next.total_tokens_incomplete = true;
  const tokens = usage.tokens;
  if (tokens !== undefined) {
    counted.token_rows += 1;
    if (tokens.cacheRead !== undefined) counted.cache_read_rows += 1;
    if (tokens.cacheWrite !== undefined) counted.cache_write_rows += 1;
    if (tokens.cachePartial) counted.cache_flagged = true;
  }
  if (next.total_tokens_incomplete) {
    delete next.total_tokens_in;
    delete next.total_tokens_out;
    delete next.total_cache_read_tokens;
    delete next.total_cache_write_tokens;
    delete next.total_cache_partial;
    return next;
  }
  if (tokens === undefined) return next;
  next.total_tokens_in = (next.total_tokens_in ?? 0) + tokens.input;
  next.total_tokens_out = (next.total_tokens_out ?? 0) + tokens.output;
  if (tokens.cacheRead !== undefined) next.total_cache_read_tokens = (next.total_cache_read_tokens ?? 0) + tokens.cacheRead;
  if (tokens.cacheWrite !== undefined) next.total_cache_write_tokens = (next.total_cache_write_tokens ?? 0) + tokens.cacheWrite;
  const anyCache = counted.cache_read_rows > 0 || counted.cache_write_rows > 0;
  const missingAxis =
    (counted.cache_read_rows > 0 && counted.cache_read_rows < counted.token_rows) ||
    (counted.cache_write_rows > 0 && counted.cache_write_rows < counted.token_rows);
  if (anyCache && (counted.cache_flagged || missingAxis)) next.total_cache_partial = true;
  return next;
}

/** The totals as the flat `total_*` metadata keys, each absent key as null (a merge patch removes it). */
export function flatRunTotalsPatch(state: RunTotalsState): Record<keyof RunTotals, number | true | null> {
  const patch = {} as Record<keyof RunTotals, number | true | null>;
  for (const key of runTotalsKeys) patch[key] = state[key] ?? null;
  return patch;
}
