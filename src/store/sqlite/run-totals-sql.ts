import type Database from 'better-sqlite3';
import { addToRunTotals, countedUsageOf, flatRunTotalsPatch } from '../../records/run-totals-fold.js';
import { runTotalsStateSchema, type RunTotalsState } from '../../records/schemas/run-usage.js';
import type { NewRunEvent } from '../schemas/event.js';

/**
 * The run totals the engine keeps in `metadata.totals` (and the flat `total_*` keys beside it):
 * folded in by the transaction that writes each attempt's end, so the totals are never behind
 * the log, and an end the store refuses (a second terminal record of one attempt) adds nothing.
 * Must run inside the caller's transaction.
 */
export function runTotalsStatements(db: Database.Database) {
  const read = db.prepare(`SELECT json_extract(metadata, '$.totals') AS totals FROM workflow_runs WHERE id = ?`);
  const write = db.prepare(
    `UPDATE workflow_runs SET metadata = json_patch(json_set(metadata, '$.totals', json(@totals)), @flat) WHERE id = @runId`,
  );

  return {
    /** Adds the spend of the node events just written (those that count) to their runs' totals. */
    add(written: readonly Pick<NewRunEvent, 'run_id' | 'event_type' | 'step_name' | 'data'>[]): void {
      const byRun = new Map<string, RunTotalsState | undefined>();
      for (const event of written) {
        const usage = countedUsageOf(event);
        // A row that reports nothing (every bash and script attempt) changes no total: no write,
        // since rewriting the run's row (its stored definition included) per node made a
        // 10,000-node run pay for its size at every node.
        if (usage === undefined || Object.keys(usage).length === 0) continue;
        const before = byRun.has(event.run_id) ? byRun.get(event.run_id) : stored(event.run_id);
        byRun.set(event.run_id, addToRunTotals(before, usage));
      }
      for (const [runId, totals] of byRun) {
        if (totals) write.run({ runId, totals: JSON.stringify(totals), flat: JSON.stringify(flatRunTotalsPatch(totals)) });
      }
    },
  };

  function stored(runId: string): RunTotalsState | undefined {
    const row = read.get(runId) as { totals: string | null } | undefined;
    if (!row?.totals) return undefined;
    // Totals this version cannot read start over rather than block the attempt's end.
    return runTotalsStateSchema.safeParse(JSON.parse(row.totals)).data;
  }
}
