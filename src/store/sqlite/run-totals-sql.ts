import type Database from 'better-sqlite3';
import type { NewRunEvent } from '../schemas/event.js';
import { foldRunTotals, storedTotalsOf } from '../rules/run-totals.js';

/**
 * Stores the run totals the fold (rules/run-totals.ts) decides, for the events just written.
 * Must run inside the caller's transaction.
 */
export function runTotalsStatements(db: Database.Database) {
  const read = db.prepare(
    `SELECT json_extract(metadata, '$.totals') AS totals, json_extract(metadata, '$.budget_scope') AS scope FROM workflow_runs WHERE id = ?`,
  );
  const write = db.prepare(
    `UPDATE workflow_runs SET metadata = json_patch(json_set(metadata, '$.totals', json(@totals)), @flat) WHERE id = @runId`,
  );
  // Added in place, so the ancestor's other metadata writes (JSON patches) and this one never undo each other.
  const addToAncestor = db.prepare(
    `UPDATE workflow_runs SET metadata = json_set(metadata, '$.descendants_cost_usd',
       coalesce(json_extract(metadata, '$.descendants_cost_usd'), 0) + @costUsd) WHERE id = @runId`,
  );

  return {
    /** Adds the spend the events just written carry (`adds_to_totals`) to their runs' totals. */
    add(written: readonly Pick<NewRunEvent, 'run_id' | 'adds_to_totals'>[]): void {
      const writes = foldRunTotals(written, (runId) => {
        const row = read.get(runId) as { totals: string | null; scope: string | null } | undefined;
        return storedTotalsOf(row?.totals ? JSON.parse(row.totals) : undefined, row?.scope ? JSON.parse(row.scope) : undefined);
      });
      for (const run of writes.runs) write.run({ runId: run.runId, totals: JSON.stringify(run.totals), flat: JSON.stringify(run.flat) });
      for (const ancestor of writes.ancestors) addToAncestor.run(ancestor);
    },
  };
}
