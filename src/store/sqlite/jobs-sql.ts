import type Database from 'better-sqlite3';
import type { Job, JobKind } from '../schemas/job.js';
import { toJob } from './rows.js';
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
  const claim = db.prepare(
    `UPDATE jobs SET status = 'claimed', lease_owner = @owner, lease_expires_at = @leaseUntil,
       attempts = attempts + 1
     WHERE id = (
       SELECT j.id FROM jobs j LEFT JOIN workflow_runs r ON r.id = j.run_id
       WHERE (j.status = 'queued' OR (j.status = 'claimed' AND j.lease_expires_at < @now))
         AND (r.owner_id IS NULL OR r.owner_id = @owner OR r.lease_expires_at < @now)
         AND (j.kind <> 'chat_turn' OR (
           NOT EXISTS (SELECT 1 FROM jobs o WHERE o.conversation_id = j.conversation_id
             AND o.kind = 'chat_turn' AND o.id < j.id AND o.status <> 'done')
           AND (SELECT COUNT(*) FROM jobs c WHERE c.kind = 'chat_turn' AND c.status = 'claimed'
             AND c.lease_expires_at >= @now) < @maxTurns))
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
    hasOpen(): boolean {
      return anyOpen.get() !== undefined;
    },
    claim(owner: string, leaseUntil: string, now: string): Job | undefined {
      const row = claim.get({ owner, leaseUntil, now, maxTurns: MAX_CONCURRENT_CHAT_TURNS });
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
