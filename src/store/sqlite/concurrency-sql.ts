import type Database from 'better-sqlite3';
import type { RunConcurrency } from '../../shared/run-concurrency.js';
import type { KeyRun } from '../rules/run-concurrency.js';

/**
 * Statements for a concurrency key's runs (rules/run-concurrency.ts). The key is a value the
 * workflow computed from run inputs: it is only ever a bound parameter, compared as a string.
 */
export function concurrencyStatements(db: Database.Database) {
  const openOfKey = db.prepare(
    `SELECT id, json_extract(metadata, '$.concurrency.waiting_for') IS NOT NULL AS waiting,
            json_extract(metadata, '$.concurrency.limit') AS lim
       FROM workflow_runs
      WHERE status IN ('pending', 'running', 'paused') AND workflow_name = ?
        AND json_extract(metadata, '$.concurrency.key') = ?
      ORDER BY created_at, rowid`,
  );
  const setConcurrency = db.prepare(
    `UPDATE workflow_runs SET metadata = json_set(metadata, '$.concurrency', json(?)) WHERE id = ?`,
  );
  const getConcurrency = db.prepare(`SELECT json_extract(metadata, '$.concurrency') AS c FROM workflow_runs WHERE id = ?`);
  return {
    /** The key's open runs (pending, running or paused), oldest first. */
    openOfKey(workflowName: string, key: string): KeyRun[] {
      return (openOfKey.all(workflowName, key) as { id: string; waiting: number; lim: number | null }[]).map((row) => ({
        id: row.id,
        waiting: row.waiting === 1,
        limit: typeof row.lim === 'number' && row.lim > 0 ? row.lim : 1,
      }));
    },
    /** Rewrites a run's metadata.concurrency with `change` applied (undefined values dropped). */
    patch(runId: string, change: Partial<RunConcurrency>): void {
      const row = getConcurrency.get(runId) as { c: string | null } | undefined;
      if (!row?.c) return;
      const next = { ...(JSON.parse(row.c) as RunConcurrency), ...change };
      for (const key of Object.keys(next) as (keyof RunConcurrency)[]) if (next[key] === undefined) delete next[key];
      setConcurrency.run(JSON.stringify(next), runId);
    },
  };
}
