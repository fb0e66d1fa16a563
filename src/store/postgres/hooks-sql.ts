import type { NewHook, StatusCommentClaim } from '../hooks.js';
import { toHookDelivery, toStoredHook } from '../hook-rows.js';
import type { HookDelivery, StoredHook } from '../schemas/hook.js';
import type { Query } from './session.js';

/** Statements for `hooks` and `hook_deliveries`. Callers run multi-statement changes inside one write. */
export function hookStatements(q: Query) {
  const hook = async (sql: string, values: readonly unknown[]): Promise<StoredHook | undefined> => {
    const [row] = await q(sql, values);
    return row ? toStoredHook(row) : undefined;
  };
  const delivery = async (sql: string, values: readonly unknown[]): Promise<HookDelivery | undefined> => {
    const [row] = await q(sql, values);
    return row ? toHookDelivery(row) : undefined;
  };

  return {
    /** Undefined when the name is taken. */
    insert: (h: NewHook, now: string) =>
      hook(
        `INSERT INTO hooks (id, name, workflow_name, codebase_id, signature, inputs, sealed_secret, github, sealed_github_token, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (name) DO NOTHING RETURNING *`,
        [
          h.id, h.name, h.workflowName, h.codebaseId, h.signature, JSON.stringify(h.inputs), h.sealedSecret,
          h.github ? JSON.stringify(h.github) : null, h.sealedGithubToken ?? null, now,
        ],
      ),
    get: (name: string) => hook('SELECT * FROM hooks WHERE name = $1', [name]),
    /** Holds the hook's row (FOR SHARE) until the transaction ends: it cannot be deleted under an admission. */
    holds: async (id: string): Promise<boolean> => (await q('SELECT id FROM hooks WHERE id = $1 FOR SHARE', [id])).length > 0,
    list: async (): Promise<StoredHook[]> => (await q('SELECT * FROM hooks ORDER BY name')).map(toStoredHook),
    replaceToken: (id: string, sealed: string) =>
      hook('UPDATE hooks SET sealed_github_token = $1 WHERE id = $2 AND github IS NOT NULL RETURNING *', [sealed, id]),
    remove: async (name: string): Promise<boolean> => (await q('DELETE FROM hooks WHERE name = $1 RETURNING id', [name])).length > 0,
    delivery: (hookId: string, deliveryId: string) =>
      delivery('SELECT * FROM hook_deliveries WHERE hook_id = $1 AND delivery_id = $2', [hookId, deliveryId]),
    /** Newest first. */
    deliveries: async (hookId: string, limit: number, offset: number): Promise<HookDelivery[]> =>
      (
        await q('SELECT * FROM hook_deliveries WHERE hook_id = $1 ORDER BY received_at DESC, delivery_id DESC LIMIT $2 OFFSET $3', [hookId, limit, offset])
      ).map(toHookDelivery),
    deliveryCount: async (hookId: string): Promise<number> =>
      Number((await q('SELECT count(*) AS n FROM hook_deliveries WHERE hook_id = $1', [hookId]))[0]!.n),
    /**
     * Undefined when the (hook, delivery id) key is taken. A racing transaction that holds the key
     * uncommitted makes this wait for its end (then it answers undefined, or inserts if that one
     * rolled back).
     */
    insertDelivery: (hookId: string, deliveryId: string, runId: string, now: string) =>
      delivery(
        `INSERT INTO hook_deliveries (hook_id, delivery_id, run_id, received_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (hook_id, delivery_id) DO NOTHING RETURNING *`,
        [hookId, deliveryId, runId, now],
      ),
    async claimStatus(claim: { hookId: string; deliveryId: string; claimant: string; staleBefore: string }, now: string): Promise<StatusCommentClaim> {
      const taken = await q(
        `UPDATE hook_deliveries SET status_claimed_by = $3, status_claimed_at = $4
         WHERE hook_id = $1 AND delivery_id = $2 AND status_comment_id IS NULL
           AND (status_claimed_by IS NULL OR status_claimed_by = $3 OR status_claimed_at < $5)
         RETURNING delivery_id`,
        [claim.hookId, claim.deliveryId, claim.claimant, now, claim.staleBefore],
      );
      if (taken.length > 0) return { claimed: true };
      const [row] = await q('SELECT status_comment_id, status_claimed_by FROM hook_deliveries WHERE hook_id = $1 AND delivery_id = $2', [claim.hookId, claim.deliveryId]);
      return { claimed: false, commentId: row?.status_comment_id == null ? null : Number(row.status_comment_id), claimedBy: row?.status_claimed_by == null ? null : String(row.status_claimed_by) };
    },
    recordStatus: async (shown: { hookId: string; deliveryId: string; commentId: number; status: string | null }): Promise<void> =>
      void (await q('UPDATE hook_deliveries SET status_comment_id = $1, status_shown = $2 WHERE hook_id = $3 AND delivery_id = $4', [shown.commentId, shown.status, shown.hookId, shown.deliveryId])),
    /** Undefined when the (hook, delivery id) key is taken (waiting, like insertDelivery, for a racing holder). */
    insertIgnored: (hookId: string, deliveryId: string, reason: string, now: string) =>
      delivery(
        `INSERT INTO hook_deliveries (hook_id, delivery_id, ignored, received_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (hook_id, delivery_id) DO NOTHING RETURNING *`,
        [hookId, deliveryId, reason, now],
      ),
    /**
     * Deletes at most `limit` deliveries received before `before`, oldest first; answers how many.
     * Rows another transaction holds (another supervisor's prune) are skipped, not waited for.
     */
    pruneOldest: async (before: string, limit: number): Promise<number> =>
      (
        await q(
          `DELETE FROM hook_deliveries WHERE (hook_id, delivery_id) IN
             (SELECT hook_id, delivery_id FROM hook_deliveries WHERE received_at < $1 ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING 1`,
          [before, limit],
        )
      ).length,
  };
}
