import type Database from 'better-sqlite3';
import type { Job, JobKind } from '../schemas/job.js';
import { toJob } from '../rows.js';
import { MAX_CONCURRENT_CHAT_TURNS, type ChatTurnQueue } from '../schemas/conversation.js';

/** Statements for the `jobs` queue. */
export function jobStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO jobs (kind, run_id, conversation_id, payload, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *`,
  );
  const openTurns = db.prepare(
    `SELECT conversation_id, status, lease_expires_at FROM jobs
     WHERE kind = 'chat_turn' AND status <> 'done' ORDER BY id`,
  );
  // One statement picks and leases the job, so two supervisors can never claim the same one.
  // A job whose run is owned by another supervisor with a live lease waits for that owner.
  // A chat turn waits for every older open turn of its conversation (one turn per conversation,
  // in order) and for a free slot among the chat turns being carried out.
  const claimable = `(j.status = 'queued' OR (j.status = 'claimed' AND j.lease_expires_at < @now))
         AND (r.owner_id IS NULL OR r.owner_id = @owner OR r.lease_expires_at < @now)
         AND (j.kind <> 'chat_turn' OR (
           NOT EXISTS (SELECT 1 FROM jobs o WHERE o.conversation_id = j.conversation_id
             AND o.kind = 'chat_turn' AND o.id < j.id AND o.status <> 'done')
           AND (SELECT COUNT(*) FROM jobs c WHERE c.kind = 'chat_turn' AND c.status = 'claimed'
             AND c.lease_expires_at >= @now) < @maxTurns))`;
  // The oldest claimable job among those due now: jobs without a moment walk jobs_open_now in id
  // order; jobs with one walk jobs_open_later only up to now, so jobs due later (a thousand
  // sleeping runs) are never read.
  const claim = db.prepare(
    `UPDATE jobs SET status = 'claimed', lease_owner = @owner, lease_expires_at = @leaseUntil,
       attempts = attempts + 1
     WHERE id = (
       SELECT id FROM (
         SELECT id FROM (
           SELECT j.id FROM jobs j INDEXED BY jobs_open_now LEFT JOIN workflow_runs r ON r.id = j.run_id
           WHERE j.status <> 'done' AND j.not_before IS NULL AND ${claimable}
           ORDER BY j.id LIMIT 1)
         UNION ALL
         SELECT id FROM (
           SELECT j.id FROM jobs j INDEXED BY jobs_open_later LEFT JOIN workflow_runs r ON r.id = j.run_id
           WHERE j.status <> 'done' AND j.not_before IS NOT NULL AND j.not_before <= @now AND ${claimable}
           ORDER BY j.not_before, j.id LIMIT 1))
       ORDER BY id LIMIT 1)
     RETURNING *`,
  );
  // A read first: the claim loop wakes on every commit (events included), and taking the write
  // lock for an empty queue each time would contend with every worker's event writes.
  const anyOpen = db.prepare(
    `SELECT 1 WHERE EXISTS (SELECT 1 FROM jobs INDEXED BY jobs_open_now WHERE status <> 'done' AND not_before IS NULL)
        OR EXISTS (SELECT 1 FROM jobs INDEXED BY jobs_open_later
                   WHERE status <> 'done' AND not_before IS NOT NULL AND not_before <= ?)`,
  );
  // The first moment an open job becomes due after `now`: the claim loop sets its timer by it.
  const nextDue = db.prepare(
    `SELECT MIN(not_before) AS at FROM jobs INDEXED BY jobs_open_later
     WHERE status <> 'done' AND not_before IS NOT NULL AND not_before > ?`,
  );
  const insertAt = db.prepare(
    `INSERT INTO jobs (kind, run_id, conversation_id, payload, created_at, not_before) VALUES (?, ?, NULL, ?, ?, ?) RETURNING *`,
  );
  // A run has at most one pending wake-up: a new one replaces the older; a run that ends needs none.
  const closeOpenOfKind = db.prepare(
    `UPDATE jobs SET status = 'done', result = ?, lease_owner = NULL, lease_expires_at = NULL
     WHERE run_id = ? AND kind = ? AND status = 'queued'`,
  );
  // Finishing, a failed attempt and a renewal by the job's holder (rules/job-leases.ts decides who).
  const finish = db.prepare(`UPDATE jobs SET status = 'done', result = ?, lease_expires_at = NULL WHERE id = ?`);
  const failAttempt = db.prepare(
    `UPDATE jobs SET last_error = @last_error, lease_expires_at = @lease_expires_at, attempts = @attempts WHERE id = @id`,
  );
  const renew = db.prepare('UPDATE jobs SET lease_expires_at = ? WHERE id = ?');
  const some = db.prepare('SELECT * FROM jobs WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id');
  // The attempt count stays: a job that keeps killing its supervisor is still given up.
  const requeue = db.prepare(
    `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
     WHERE status = 'claimed' AND lease_owner IN (SELECT value FROM json_each(?))`,
  );
  const byRun = db.prepare('SELECT * FROM jobs WHERE run_id = ? ORDER BY id');
  const byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
  const openOfKinds = db.prepare(
    `SELECT * FROM jobs WHERE run_id = ? AND status <> 'done' AND kind IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT 1`,
  );

  return {
    insert(kind: JobKind, runId: string | null, payload: Record<string, unknown>, now: string, conversationId: string | null = null): Job {
      return toJob(insert.get(kind, runId, conversationId, JSON.stringify(payload), now) as Record<string, unknown>);
    },
    /**
     * The open chat turns: a conversation is active while one of its turns is claimed under a
     * live lease; every other open turn waits.
     */
    chatTurns(now: string): ChatTurnQueue {
      const active = new Set<string>();
      const queuedByConversation: Record<string, number> = {};
      for (const row of openTurns.all() as { conversation_id: string; status: string; lease_expires_at: string | null }[]) {
        if (row.status === 'claimed' && row.lease_expires_at !== null && row.lease_expires_at >= now) active.add(row.conversation_id);
        else queuedByConversation[row.conversation_id] = (queuedByConversation[row.conversation_id] ?? 0) + 1;
      }
      return { activeConversationIds: [...active], queuedByConversation };
    },
    /** Whether some open job is due at `now` (queued, claimed under any lease, not waiting for a later moment). */
    hasOpen(now: string): boolean {
      return anyOpen.get(now) !== undefined;
    },
    /** The first moment after `now` an open job becomes due, or undefined when none waits. */
    nextDue(now: string): string | undefined {
      return (nextDue.get(now) as { at: string | null }).at ?? undefined;
    },
    /** Queues a job of a run not to be claimed before `notBefore`. */
    insertAt(kind: JobKind, runId: string, payload: Record<string, unknown>, now: string, notBefore: string): Job {
      return toJob(insertAt.get(kind, runId, JSON.stringify(payload), now, notBefore) as Record<string, unknown>);
    },
    /** Marks the run's queued jobs of `kind` done with `result` (unclaimed ones only). Returns how many. */
    closeQueued(runId: string, kind: JobKind, result: string): number {
      return closeOpenOfKind.run(result, runId, kind).changes;
    },
    claim(owner: string, leaseUntil: string, now: string): Job | undefined {
      const row = claim.get({ owner, leaseUntil, now, maxTurns: MAX_CONCURRENT_CHAT_TURNS });
      return row ? toJob(row as Record<string, unknown>) : undefined;
    },
    /** Marks the job done with `result` (its holder's finish: rules/job-leases.ts). */
    finish(jobId: number, result: string): void {
      finish.run(result, jobId);
    },
    /** Stores a failed attempt as the rules wrote it (failedAttempt). */
    failAttempt(jobId: number, failed: Pick<Job, 'last_error' | 'lease_expires_at' | 'attempts'>): void {
      failAttempt.run({ id: jobId, ...failed });
    },
    /** Sets the lease of a job its holder renews. */
    renew(jobId: number, leaseUntil: string): void {
      renew.run(leaseUntil, jobId);
    },
    /** The named jobs, by id. */
    some(jobIds: readonly number[]): Job[] {
      return some.all(JSON.stringify(jobIds)).map((r) => toJob(r as Record<string, unknown>));
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
    /** The oldest open (queued or claimed) job of the run of one of `kinds`. */
    openOfKinds(runId: string, kinds: readonly JobKind[]): Job | undefined {
      const row = openOfKinds.get(runId, JSON.stringify(kinds));
      return row ? toJob(row as Record<string, unknown>) : undefined;
    },
    listByRun(runId: string): Job[] {
      return byRun.all(runId).map((r) => toJob(r as Record<string, unknown>));
    },
  };
}
