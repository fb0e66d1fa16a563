import { accountingSchema, type Accounting } from './schemas/execution-record.js';
import type { CostScope } from '../store/schemas/run-usage.js';

/** Accounting rule 3: `node` is the row's own spend; every other kind restates a total. */
export function costScopeOfAccounting(accounting: Accounting): CostScope {
  return accounting === 'node' ? 'own' : 'total';
}

/**
 * The cost scope of a node event's `data`: from the record's `accounting` when the row has
 * one, otherwise (historical rows) `total` when `aggregate: true`, else `own`.
 */
export function costScopeOf(data: Readonly<Record<string, unknown>>): CostScope {
  const accounting = accountingOf(data.execution) ?? accountingOf(data);
  if (accounting !== undefined) return costScopeOfAccounting(accounting);
  return data.aggregate === true ? 'total' : 'own';
}

function accountingOf(value: unknown): Accounting | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const parsed = accountingSchema.safeParse((value as { accounting?: unknown }).accounting);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The event as GET /api/workflows/runs/{runId} serialises it: with `cost_scope` beside
 * `data` when `data.cost_usd` is a number, unchanged otherwise.
 */
export function withCostScope<E extends { data: Readonly<Record<string, unknown>> }>(event: E): E & { cost_scope?: CostScope } {
  const cost = event.data.cost_usd;
  if (typeof cost !== 'number' || !Number.isFinite(cost)) return event;
  return { ...event, cost_scope: costScopeOf(event.data) };
}
