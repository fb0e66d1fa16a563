import type Database from 'better-sqlite3';
import type { Job, JobKind } from '../schemas/job.js';
import { toJob } from './rows.js';

/** Statements for the `jobs` queue. */
export function jobStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO jobs (kind, run_id, payload, created_at) VALUES (?, ?, ?, ?) RETURNING *`,
  );
  // One statement picks and leases the job, so two supervisors can never claim the same one.
  // A job whose run is owned by another supervisor with a live lease waits for that owner.
  const claim = db.prepare(
    `UPDATE jobs SET status = 'claimed', lease_owner = @owner, lease_expires_at = @leaseUntil
     WHERE id = (
       SELECT j.id FROM jobs j JOIN workflow_runs r ON r.id = j.run_id
       WHERE (j.status = 'queued' OR (j.status = 'claimed' AND j.lease_expires_at < @now))
         AND (r.owner_id IS NULL OR r.owner_id = @owner OR r.lease_expires_at < @now)
       ORDER BY j.id LIMIT 1)
     RETURNING *`,
  );
  // A read first: the claim loop wakes on every commit (events included), and taking the write
  // lock for an empty queue each time would contend with every worker's event writes.
  const anyOpen = db.prepare(`SELECT 1 FROM jobs WHERE status <> 'done' LIMIT 1`);
  const finish = db.prepare(
    `UPDATE jobs SET status = 'done', result = ?, lease_expires_at = NULL
     WHERE id = ? AND lease_owner = ?`,
  );

  return {
    insert(kind: JobKind, runId: string, payload: Record<string, unknown>, now: string): Job {
      return toJob(insert.get(kind, runId, JSON.stringify(payload), now) as Record<string, unknown>);
    },
    hasOpen(): boolean {
      return anyOpen.get() !== undefined;
    },
    claim(owner: string, leaseUntil: string, now: string): Job | undefined {
      const row = claim.get({ owner, leaseUntil, now });
      return row ? toJob(row as Record<string, unknown>) : undefined;
    },
    finish(jobId: number, owner: string, result: string): void {
      finish.run(result, jobId, owner);
    },
  };
}
