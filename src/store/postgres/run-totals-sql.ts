import type { NewRunEvent } from '../schemas/event.js';
import { foldRunTotals, storedTotalsOf } from '../rules/run-totals.js';
import type { Query } from './session.js';

/**
 * Stores the run totals the fold (rules/run-totals.ts) decides, for the events just written.
 * Runs inside the caller's write, which holds the runs' row locks.
 */
export function runTotalsStatements(q: Query) {
  return {
    async add(written: readonly Pick<NewRunEvent, 'run_id' | 'adds_to_totals'>[]): Promise<void> {
      const counted = [...new Set(written.filter((e) => e.adds_to_totals !== undefined && Object.keys(e.adds_to_totals).length > 0).map((e) => e.run_id))];
      if (counted.length === 0) return;
      const rows = await q(
        `SELECT id, metadata::jsonb -> 'totals' AS totals, metadata::jsonb -> 'budget_scope' AS scope
         FROM workflow_runs WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`,
        [counted],
      );
      const byId = new Map(rows.map((row) => [row.id as string, row]));
      const writes = foldRunTotals(written, (runId) => storedTotalsOf(byId.get(runId)?.totals ?? undefined, byId.get(runId)?.scope ?? undefined));
      for (const run of writes.runs) {
        await q(
          `UPDATE workflow_runs SET metadata = cairn_merge_patch(jsonb_set(metadata::jsonb, '{totals}', $2::jsonb), $3::jsonb)::text WHERE id = $1`,
          [run.runId, JSON.stringify(run.totals), JSON.stringify(run.flat)],
        );
      }
      // Added in place, so the ancestor's other metadata writes and this one never undo each other.
      for (const ancestor of writes.ancestors) {
        await q(
          `UPDATE workflow_runs SET metadata = jsonb_set(metadata::jsonb, '{descendants_cost_usd}',
             to_jsonb(COALESCE((metadata::jsonb ->> 'descendants_cost_usd')::float8, 0) + $2::float8))::text WHERE id = $1`,
          [ancestor.runId, ancestor.costUsd],
        );
      }
    },
  };
}
