import { cancellingJobKinds, type Job, type JobKind } from '../schemas/job.js';
import { terminalRunStatuses } from '../schemas/run.js';
import { MAX_CONCURRENT_CHAT_TURNS, type ChatTurnQueue } from '../schemas/conversation.js';
import { toJob } from './rows.js';
import { NOTIFY_CHANGE, type Query } from './session.js';

/**
 * What makes a job claimable at $2 by $1 (the query form of store/jobs.ts claimJob): queued, or
 * claimed under a lease that lapsed; its run unowned, the claimant's, or under a lapsed lease; a
 * chat turn only after every older open turn of its conversation, and while fewer than $3 turns
 * are being carried out.
 */
const claimable = `(j.status = 'queued' OR (j.status = 'claimed' AND j.lease_expires_at < $2))
     AND (r.owner_id IS NULL OR r.owner_id = $1 OR r.lease_expires_at < $2)
     AND (j.kind <> 'chat_turn' OR (
       NOT EXISTS (SELECT 1 FROM jobs o WHERE o.conversation_id = j.conversation_id
         AND o.kind = 'chat_turn' AND o.id < j.id AND o.status <> 'done')
       AND (SELECT COUNT(*) FROM jobs c WHERE c.kind = 'chat_turn' AND c.status = 'claimed'
         AND c.lease_expires_at >= $2) < $3))`;

/**
 * The columns a job is read from, named for the prepared statements: one that selected `*`
 * would fail in every running process once a migration added a column.
 */
const JOB_COLUMNS = 'id, kind, run_id, conversation_id, payload, status, lease_owner, lease_expires_at, result, created_at, attempts, last_error, not_before';

/** Statements for the `jobs` queue. */
export function jobStatements(q: Query) {
  const first = async (sql: string, params: readonly unknown[], name?: string): Promise<Job | undefined> => {
    const [row] = await q(sql, params, name);
    return row ? toJob(row) : undefined;
  };
  return {
    async insert(kind: JobKind, runId: string | null, payload: Record<string, unknown>, now: string, conversationId: string | null = null): Promise<Job> {
      return (await first(
        'INSERT INTO jobs (kind, run_id, conversation_id, payload, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
        [kind, runId, conversationId, JSON.stringify(payload), now],
      ))!;
    },
    async insertAt(kind: JobKind, runId: string, payload: Record<string, unknown>, now: string, notBefore: string): Promise<Job> {
      return (await first(
        'INSERT INTO jobs (kind, run_id, conversation_id, payload, created_at, not_before) VALUES ($1, $2, NULL, $3, $4, $5) RETURNING *',
        [kind, runId, JSON.stringify(payload), now, notBefore],
      ))!;
    },
    /** The open chat turns: a conversation is active while one of its turns is claimed under a live lease. */
    async chatTurns(now: string): Promise<ChatTurnQueue> {
      const rows = (await q(
        `SELECT conversation_id, status, lease_expires_at FROM jobs WHERE kind = 'chat_turn' AND status <> 'done' ORDER BY id`,
      )) as { conversation_id: string; status: string; lease_expires_at: string | null }[];
      const active = new Set<string>();
      const queuedByConversation: Record<string, number> = {};
      for (const row of rows) {
        if (row.status === 'claimed' && row.lease_expires_at !== null && row.lease_expires_at >= now) active.add(row.conversation_id);
        else queuedByConversation[row.conversation_id] = (queuedByConversation[row.conversation_id] ?? 0) + 1;
      }
      return { activeConversationIds: [...active], queuedByConversation };
    },
    async nextDue(now: string): Promise<string | undefined> {
      const [row] = await q(`SELECT MIN(not_before) AS at FROM jobs WHERE status <> 'done' AND not_before IS NOT NULL AND not_before > $1`, [now], 'cairn_next_due_job');
      return (row?.at as string | null) ?? undefined;
    },
    async closeQueued(runId: string, kind: JobKind, result: string): Promise<void> {
      await q(
        `UPDATE jobs SET status = 'done', result = $1, lease_owner = NULL, lease_expires_at = NULL
         WHERE run_id = $2 AND kind = $3 AND status = 'queued'`,
        [result, runId, kind],
      );
    },
    /**
     * Picks the oldest claimable job due now and leases it, skipping rows another claimant has
     * locked (FOR UPDATE SKIP LOCKED): supervisors claiming at once take different jobs, never
     * one twice, and never wait for each other. One statement, its own transaction: claiming a
     * cancel or abandon records the cancel request on its run in it (the query form of
     * rules/run-requests.ts cancelRecordedByClaim with run-ownership.ts cancelRequestAfter: as of
     * the job's creation, unless one is recorded already or the run has ended), and a claim
     * notifies the change channel; a look that finds nothing writes and notifies nothing.
     */
    async claim(owner: string, leaseUntil: string, now: string, token: string): Promise<Job | undefined> {
      return first(
        `WITH picked AS (
           SELECT j.id FROM jobs j LEFT JOIN workflow_runs r ON r.id = j.run_id
           WHERE j.status <> 'done' AND (j.not_before IS NULL OR j.not_before <= $2) AND ${claimable}
           ORDER BY j.id LIMIT 1
           FOR UPDATE OF j SKIP LOCKED
         ), claimed AS (
           UPDATE jobs SET status = 'claimed', lease_owner = $1, lease_expires_at = $4, attempts = attempts + 1,
             claim_token = $7
           FROM picked WHERE jobs.id = picked.id RETURNING ${JOB_COLUMNS.replace(/(\w+)/g, 'jobs.$1')}
         ), cancel_recorded AS (
           UPDATE workflow_runs r SET cancel_requested_at = claimed.created_at
           FROM claimed WHERE r.id = claimed.run_id AND claimed.kind = ANY($5::text[])
             AND r.cancel_requested_at IS NULL AND r.status <> ALL($6::text[])
         )
         SELECT ${JOB_COLUMNS}, ${NOTIFY_CHANGE} AS notified FROM claimed`,
        [owner, now, MAX_CONCURRENT_CHAT_TURNS, leaseUntil, [...cancellingJobKinds], [...terminalRunStatuses], token],
        'cairn_claim_job',
      );
    },
    /**
     * The job the claim that wrote `token` leased, if that claim committed and `owner` still holds
     * the job. Asked only after a lost connection, so it has no index to keep up on every claim.
     */
    async claimedWith(owner: string, token: string): Promise<Job | undefined> {
      return first(`SELECT * FROM jobs WHERE claim_token = $1 AND status = 'claimed' AND lease_owner = $2`, [token, owner]);
    },
    /**
     * Finishes the job if `owner` holds it (the query form of rules/job-leases.ts mayFinishJob),
     * in one statement that notifies the change channel when it does.
     */
    async finishHeld(jobId: number, owner: string, result: string): Promise<void> {
      await q(
        `WITH finished AS (
           UPDATE jobs SET status = 'done', result = $1, lease_expires_at = NULL WHERE id = $2 AND lease_owner = $3 RETURNING id
         )
         SELECT ${NOTIFY_CHANGE} FROM finished`,
        [result, jobId, owner],
        'cairn_finish_job',
      );
    },
    async failAttempt(jobId: number, failed: Pick<Job, 'last_error' | 'lease_expires_at' | 'attempts'>): Promise<void> {
      await q('UPDATE jobs SET last_error = $1, lease_expires_at = $2, attempts = $3 WHERE id = $4', [
        failed.last_error, failed.lease_expires_at, failed.attempts, jobId,
      ]);
    },
    async renew(jobIds: readonly number[], leaseUntil: string): Promise<void> {
      if (jobIds.length > 0) await q('UPDATE jobs SET lease_expires_at = $1 WHERE id = ANY($2::bigint[])', [leaseUntil, [...jobIds]]);
    },
    /** The named jobs, by id, locked until the write commits. */
    async some(jobIds: readonly number[]): Promise<Job[]> {
      return (await q('SELECT * FROM jobs WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE', [[...jobIds]])).map(toJob);
    },
    async requeue(owners: readonly string[]): Promise<number> {
      if (owners.length === 0) return 0;
      return (
        await q(
          `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL
           WHERE status = 'claimed' AND lease_owner = ANY($1::text[]) RETURNING id`,
          [[...owners]],
        )
      ).length;
    },
    /** One job; `lock` takes its row lock until the write commits. */
    async get(jobId: number, lock = false): Promise<Job | undefined> {
      return first(`SELECT * FROM jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [jobId]);
    },
    async openOfKinds(runId: string, kinds: readonly JobKind[]): Promise<Job | undefined> {
      return first(`SELECT * FROM jobs WHERE run_id = $1 AND status <> 'done' AND kind = ANY($2::text[]) ORDER BY id LIMIT 1`, [runId, [...kinds]]);
    },
    async listByRun(runId: string): Promise<Job[]> {
      return (await q('SELECT * FROM jobs WHERE run_id = $1 ORDER BY id', [runId])).map(toJob);
    },
  };
}
