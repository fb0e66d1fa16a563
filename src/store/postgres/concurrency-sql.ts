import type { RunConcurrency } from '../../shared/run-concurrency.js';
import type { KeyRun } from '../rules/run-concurrency.js';
import type { Query } from './session.js';

/**
 * Statements for a concurrency key's runs (rules/run-concurrency.ts). The key is a value the
 * workflow computed from run inputs: it is only ever a bound parameter, compared as a string.
 */
export function concurrencyStatements(q: Query) {
  return {
    /**
     * Holds the key until the transaction ends: the admissions and the endings of one key's runs
     * are decided one after the other (a transaction-scoped advisory lock on the workflow and key).
     */
    async lockKey(workflowName: string, key: string): Promise<void> {
      await q('SELECT pg_advisory_xact_lock(hashtext($1))', [`run_concurrency:${JSON.stringify([workflowName, key])}`]);
    },
    /** The key's open runs (pending, running or paused), oldest first. */
    async openOfKey(workflowName: string, key: string): Promise<KeyRun[]> {
      const rows = await q(
        `SELECT id, (metadata::jsonb -> 'concurrency' -> 'waiting_for') IS NOT NULL AS waiting,
                metadata::jsonb -> 'concurrency' ->> 'limit' AS lim
           FROM workflow_runs
          WHERE status IN ('pending', 'running', 'paused') AND workflow_name = $1
            AND metadata::jsonb -> 'concurrency' ->> 'key' = $2
          ORDER BY created_at, row_seq`,
        [workflowName, key],
      );
      return rows.map((row) => {
        const limit = Number(row.lim);
        return { id: String(row.id), waiting: row.waiting === true, limit: Number.isInteger(limit) && limit > 0 ? limit : 1 };
      });
    },
    /** Rewrites a run's metadata.concurrency with `change` applied (undefined values dropped). */
    async patch(runId: string, change: Partial<RunConcurrency>): Promise<void> {
      const rows = await q(`SELECT metadata::jsonb -> 'concurrency' AS c FROM workflow_runs WHERE id = $1`, [runId]);
      const current = rows[0]?.c as RunConcurrency | null | undefined;
      if (!current) return;
      const next = { ...current, ...change };
      for (const key of Object.keys(next) as (keyof RunConcurrency)[]) if (next[key] === undefined) delete next[key];
      await q(`UPDATE workflow_runs SET metadata = jsonb_set(metadata::jsonb, '{concurrency}', $1::jsonb)::text WHERE id = $2`, [
        JSON.stringify(next),
        runId,
      ]);
    },
  };
}
