import { z } from 'zod';
import type { NewRunEvent } from '../schemas/event.js';
import { runTotalsKeys, runTotalsStateSchema, type RunTotals, type RunTotalsAddition, type RunTotalsState } from '../schemas/run-usage.js';

/**
 * The run totals the engine keeps in `metadata.totals` (and the flat `total_*` keys beside it),
 * folded in by the transaction that writes each attempt's end, so the totals are never behind
 * the log, and an end the store refuses (a second terminal record of one attempt) adds nothing.
 * Which event counts and what it spent is the engine's reading of the record (records/), carried
 * on the event as `adds_to_totals`; how it folds in is here, the same for every backend.
 */

/**
 * Folds one counted row into the run's totals (accounting rules 1-3, as sumUsage sums them):
 * cost always accumulates; a `tokensIncomplete` row makes the token totals unavailable for good
 * (absent, `total_tokens_incomplete`); a key stays absent until some row reports it.
 */
export function addToRunTotals(previous: RunTotalsState | undefined, usage: RunTotalsAddition): RunTotalsState {
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

/** What the fold reads of a run: its totals so far and the runs above it with a budget. */
export interface StoredTotals {
  totals: RunTotalsState | undefined;
  /** `metadata.budget_scope`: the ancestors whose budgets a child's spend counts toward. */
  scope: readonly string[];
}

/** A run's stored `metadata.totals` and `metadata.budget_scope`, as JSON values (undefined/null: absent). */
export function storedTotalsOf(totals: unknown, scope: unknown): StoredTotals {
  // Totals this version cannot read start over rather than block the attempt's end.
  return {
    totals: totals === undefined || totals === null ? undefined : runTotalsStateSchema.safeParse(totals).data,
    scope: scope === undefined || scope === null ? [] : (scopeSchema.safeParse(scope).data ?? []),
  };
}

/** What the fold writes: each run's new totals, and what to add to each ancestor's `descendants_cost_usd`. */
export interface TotalsWrites {
  runs: { runId: string; totals: RunTotalsState; flat: Record<keyof RunTotals, number | true | null> }[];
  /** Added in place, so the ancestor's other metadata writes and this one never undo each other. */
  ancestors: { runId: string; costUsd: number }[];
}

/**
 * The writes that fold the events just written into their runs' totals. An event that adds
 * nothing (every bash and script attempt) changes no total and causes no write: rewriting a
 * run's row per node made a 10,000-node run pay for its size at every node.
 */
export function foldRunTotals(
  written: readonly Pick<NewRunEvent, 'run_id' | 'adds_to_totals'>[],
  stored: (runId: string) => StoredTotals,
): TotalsWrites {
  const byRun = new Map<string, { totals: RunTotalsState | undefined; scope: readonly string[]; costUsd: number }>();
  for (const event of written) {
    const usage = event.adds_to_totals;
    if (usage === undefined || Object.keys(usage).length === 0) continue;
    const before = byRun.get(event.run_id) ?? { ...stored(event.run_id), costUsd: 0 };
    byRun.set(event.run_id, { ...before, totals: addToRunTotals(before.totals, usage), costUsd: before.costUsd + (usage.costUsd ?? 0) });
  }
  const writes: TotalsWrites = { runs: [], ancestors: [] };
  for (const [runId, { totals, scope, costUsd }] of byRun) {
    if (totals) writes.runs.push({ runId, totals, flat: flatRunTotalsPatch(totals) });
    if (costUsd > 0) for (const ancestor of scope) writes.ancestors.push({ runId: ancestor, costUsd });
  }
  return writes;
}

const scopeSchema = z.array(z.string());
