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
    `UPDATE jobs SET status = 'claimed', lease_owner = @owner, lease_expires_at = @leaseUntil,
       attempts = attempts + 1
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
  // The owner keeps the job until `retryAt`, so nobody claims it again before its delay is over.
  const failAttempt = db.prepare(
    `UPDATE jobs SET last_error = @error, lease_expires_at = @retryAt
     WHERE id = @id AND lease_owner = @owner AND status = 'claimed'`,
  );
  const renew = db.prepare(
    `UPDATE jobs SET lease_expires_at = ?
     WHERE lease_owner = ? AND status = 'claimed' AND id IN (SELECT value FROM json_each(?))`,
  );
  // The attempt count stays: a job that keeps killing its supervisor is still given up.
  const requeue = db.prepare(
    `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
     WHERE status = 'claimed' AND lease_owner IN (SELECT value FROM json_each(?))`,
  );
  const byRun = db.prepare('SELECT * FROM jobs WHERE run_id = ? ORDER BY id');
  const byId = db.prepare('SELECT * FROM jobs WHERE id = ?');

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
    failAttempt(p: { id: number; owner: string; error: string; retryAt: string }): void {
      failAttempt.run(p);
    },
    /** Extends the leases of the named jobs `owner` holds. Returns how many. */
    renew(owner: string, jobIds: readonly number[], leaseUntil: string): number {
      if (jobIds.length === 0) return 0;
      return renew.run(leaseUntil, owner, JSON.stringify(jobIds)).changes;
    },
    /** Puts the claimed jobs of the named owners back in the queue. Returns how many. */
    requeue(owners: readonly string[]): number {
      if (owners.length === 0) return 0;
      return requeue.run(JSON.stringify(owners)).changes;
    },
    get(jobId: number): Job | undefined {
      const row = byId.get(jobId);
      return row ? toJob(row as Record<string, unknown>) : undefined;
    },
    listByRun(runId: string): Job[] {
      return byRun.all(runId).map((r) => toJob(r as Record<string, unknown>));
    },
  };
}
