import type { RunTotals } from '../store/schemas/run-usage.js';
import { costScopeOfAccounting } from './cost-scope.js';
import { isWithinAnyScope } from './node-path.js';
import type { LifecycleRow, NodeRow, UsageObservation } from './read-node-event.js';

/** Summed usage. Every key is absent, never 0, when no counted row reported it. */
export interface UsageTotals {
  costUsd?: number;
  /** Some counted cost was itself partial. */
  costPartial?: true;
  tokensIn?: number;
  tokensOut?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** A cache total is a floor: some counted row reported tokens without that axis, or said so. */
  cachePartial?: true;
  /** A counted row's tokens were `incomplete`: token totals are unavailable (rule 2). */
  tokensIncomplete?: true;
}

/**
 * Whether a row's spend counts toward its node's usage (accounting rule 3): a row that consumed
 * something (completed, failed, suspended: a failure's spend was real too) in its own scope, or
 * a composed instance's terminal total.
 */
export function countsTowardNode(row: LifecycleRow): boolean {
  const consumed = row.status === 'completed' || row.status === 'failed' || row.status === 'suspended';
  return consumed && (row.instanceTotal || costScopeOfAccounting(row.accounting) === 'own');
}

export interface UsageContribution {
  path: string;
  usage: UsageObservation;
}

/**
 * The rows whose spend counts once (accounting rules 3 and 4): own-scope rows that consumed
 * something (completed, failed, suspended) plus each composed instance's terminal total; rows
 * inside an instance that has such a total are left out, as are cache replays (no new spend)
 * and roll-ups that restate their members.
 */
export function countedContributions(rows: readonly NodeRow[]): UsageContribution[] {
  const contributions: UsageContribution[] = [];
  const instanceScopes = new Set<string>();
  for (const row of rows) {
    if (row.kind !== 'lifecycle' || row.status === 'started' || row.status === 'skipped') continue;
    if (row.instanceTotal) instanceScopes.add(row.path);
    else if (costScopeOfAccounting(row.accounting) !== 'own') continue;
    contributions.push({ path: row.path, usage: row.usage });
  }
  if (instanceScopes.size === 0) return contributions;
  return contributions.filter((c) => !isWithinAnyScope(c.path, instanceScopes));
}

/** Sums observations. Cost keeps accumulating when tokens are incomplete; token totals do not. */
export function sumUsage(observations: Iterable<UsageObservation>): UsageTotals {
  const totals: UsageTotals = {};
  let tokenRows = 0;
  let cacheReadRows = 0;
  let cacheWriteRows = 0;
  let flaggedPartial = false;
  let tokensIn = 0;
  let tokensOut = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  for (const usage of observations) {
    if (usage.costUsd !== undefined) totals.costUsd = (totals.costUsd ?? 0) + usage.costUsd;
    if (usage.costPartial) totals.costPartial = true;
    if (usage.tokensIncomplete) totals.tokensIncomplete = true;
    const tokens = usage.tokens;
    if (tokens === undefined) continue;
    tokenRows++;
    tokensIn += tokens.input;
    tokensOut += tokens.output;
    if (tokens.cacheRead !== undefined) {
      cacheReadRows++;
      cacheRead += tokens.cacheRead;
    }
    if (tokens.cacheWrite !== undefined) {
      cacheWriteRows++;
      cacheWrite += tokens.cacheWrite;
    }
    if (tokens.cachePartial) flaggedPartial = true;
  }
  if (totals.tokensIncomplete || tokenRows === 0) return totals;
  totals.tokensIn = tokensIn;
  totals.tokensOut = tokensOut;
  if (cacheReadRows > 0) totals.cacheReadTokens = cacheRead;
  if (cacheWriteRows > 0) totals.cacheWriteTokens = cacheWrite;
  const anyCache = cacheReadRows > 0 || cacheWriteRows > 0;
  const missingAxis = (cacheReadRows > 0 && cacheReadRows < tokenRows) || (cacheWriteRows > 0 && cacheWriteRows < tokenRows);
  if (anyCache && (flaggedPartial || missingAxis)) totals.cachePartial = true;
  return totals;
}

/** The run metadata keys for usage totals (`total_cost_usd`, `total_tokens_in`, ...). */
export function toRunTotals(totals: UsageTotals): RunTotals {
  const run: RunTotals = {};
  if (totals.costUsd !== undefined) run.total_cost_usd = totals.costUsd;
  if (totals.tokensIn !== undefined) run.total_tokens_in = totals.tokensIn;
  if (totals.tokensOut !== undefined) run.total_tokens_out = totals.tokensOut;
  if (totals.cacheReadTokens !== undefined) run.total_cache_read_tokens = totals.cacheReadTokens;
  if (totals.cacheWriteTokens !== undefined) run.total_cache_write_tokens = totals.cacheWriteTokens;
  if (totals.cachePartial) run.total_cache_partial = true;
  if (totals.tokensIncomplete) run.total_tokens_incomplete = true;
  return run;
}
