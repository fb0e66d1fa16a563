import type { Run } from '../types.js';

/**
 * Tokens and cost, from an attempt's execution record (`spend`: measured values, `source:
 * provider` with a value or `source: unavailable` with a reason) and from the run's totals (the
 * engine's, in its metadata). Absence is shown as absence, never as 0.
 */

export interface Spend {
  tokensIn?: number;
  tokensOut?: number;
  cacheRead?: number;
  cacheWrite?: number;
  costUsd?: number;
  /** Why the tokens are unknown, when the record says (`not_reported`, `unsupported` ...). */
  tokensUnavailable?: string;
}

type Measured = { source?: unknown; value?: unknown; reason?: unknown } | undefined;

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

export function spendOfRecord(record: Record<string, unknown> | undefined): Spend | undefined {
  const spend = record?.spend as { tokens?: Measured; costUsd?: Measured } | undefined;
  if (!spend || typeof spend !== 'object') return undefined;
  const out: Spend = {};
  const tokens = spend.tokens;
  if (tokens?.source === 'provider' && tokens.value && typeof tokens.value === 'object') {
    const value = tokens.value as Record<string, unknown>;
    out.tokensIn = num(value.input);
    out.tokensOut = num(value.output);
    out.cacheRead = num(value.cacheRead);
    out.cacheWrite = num(value.cacheWrite);
  } else if (tokens?.source === 'unavailable' && typeof tokens.reason === 'string' && tokens.reason !== 'not_applicable') {
    out.tokensUnavailable = tokens.reason;
  }
  if (spend.costUsd?.source === 'provider') out.costUsd = num(spend.costUsd.value);
  return Object.values(out).some((v) => v !== undefined) ? out : undefined;
}

export function runTotals(run: Run): Spend | undefined {
  const m = run.metadata as Record<string, unknown>;
  const out: Spend = {
    tokensIn: num(m.total_tokens_in),
    tokensOut: num(m.total_tokens_out),
    cacheRead: num(m.total_cache_read_tokens),
    cacheWrite: num(m.total_cache_write_tokens),
    costUsd: num(m.total_cost_usd),
  };
  if (m.total_tokens_incomplete === true) out.tokensUnavailable = 'incomplete';
  return Object.values(out).some((v) => v !== undefined) ? out : undefined;
}

const count = (n: number) => n.toLocaleString('en-US');

/** `1,200 in · 300 out · 800 cache read · $0.0125`. */
export function spendText(spend: Spend): string {
  const parts: string[] = [];
  if (spend.tokensIn !== undefined) parts.push(`${count(spend.tokensIn)} in`);
  if (spend.tokensOut !== undefined) parts.push(`${count(spend.tokensOut)} out`);
  if (spend.cacheRead !== undefined) parts.push(`${count(spend.cacheRead)} cache read`);
  if (spend.cacheWrite !== undefined) parts.push(`${count(spend.cacheWrite)} cache write`);
  if (spend.tokensUnavailable) parts.push(`tokens ${spend.tokensUnavailable.replace('_', ' ')}`);
  if (spend.costUsd !== undefined) parts.push(`$${spend.costUsd.toFixed(4)}`);
  return parts.join(' · ');
}
