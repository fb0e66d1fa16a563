import type Database from 'better-sqlite3';
import { z } from 'zod';
import { addToRunTotals, countedUsageOf, flatRunTotalsPatch } from '../../records/run-totals-fold.js';
import { runTotalsStateSchema, type RunTotalsState } from '../schemas/run-usage.js';
import type { NewRunEvent } from '../schemas/event.js';

/**
 * The run totals the engine keeps in `metadata.totals` (and the flat `total_*` keys beside it):
 * folded in by the transaction that writes each attempt's end, so the totals are never behind
 * the log, and an end the store refuses (a second terminal record of one attempt) adds nothing.
 * Must run inside the caller's transaction.
 */
export function runTotalsStatements(db: Database.Database) {
  const read = db.prepare(
    `SELECT json_extract(metadata, '$.totals') AS totals, json_extract(metadata, '$.budget_scope') AS scope FROM workflow_runs WHERE id = ?`,
  );
  const write = db.prepare(
    `UPDATE workflow_runs SET metadata = json_patch(json_set(metadata, '$.totals', json(@totals)), @flat) WHERE id = @runId`,
  );
  // A child's spend counts toward the budgets above it (its budget_scope): added in place, so
  // the ancestor's other metadata writes (JSON patches) and this one never undo each other.
  const addToAncestor = db.prepare(
    `UPDATE workflow_runs SET metadata = json_set(metadata, '$.descendants_cost_usd',
       coalesce(json_extract(metadata, '$.descendants_cost_usd'), 0) + @costUsd) WHERE id = @runId`,
  );

  return {
    /** Adds the spend of the node events just written (those that count) to their runs' totals. */
    add(written: readonly Pick<NewRunEvent, 'run_id' | 'event_type' | 'step_name' | 'data'>[]): void {
      const byRun = new Map<string, { totals: RunTotalsState | undefined; scope: readonly string[]; costUsd: number }>();
      for (const event of written) {
        const usage = countedUsageOf(event);
        // A row that reports nothing (every bash and script attempt) changes no total: no write,
        // since rewriting the run's row (its stored definition included) per node made a
        // 10,000-node run pay for its size at every node.
        if (usage === undefined || Object.keys(usage).length === 0) continue;
        const before = byRun.get(event.run_id) ?? stored(event.run_id);
        byRun.set(event.run_id, { ...before, totals: addToRunTotals(before.totals, usage), costUsd: before.costUsd + (usage.costUsd ?? 0) });
      }
      for (const [runId, { totals, scope, costUsd }] of byRun) {
        if (totals) write.run({ runId, totals: JSON.stringify(totals), flat: JSON.stringify(flatRunTotalsPatch(totals)) });
        if (costUsd > 0) for (const ancestor of scope) addToAncestor.run({ runId: ancestor, costUsd });
      }
    },
  };

  function stored(runId: string): { totals: RunTotalsState | undefined; scope: readonly string[]; costUsd: number } {
    const row = read.get(runId) as { totals: string | null; scope: string | null } | undefined;
    // Totals this version cannot read start over rather than block the attempt's end.
    const totals = row?.totals ? runTotalsStateSchema.safeParse(JSON.parse(row.totals)).data : undefined;
    const scope = row?.scope ? scopeSchema.safeParse(JSON.parse(row.scope)).data ?? [] : [];
    return { totals, scope, costUsd: 0 };
  }
}

const scopeSchema = z.array(z.string());
