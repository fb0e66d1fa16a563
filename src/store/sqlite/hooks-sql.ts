import type Database from 'better-sqlite3';
import type { NewHook, StatusCommentClaim } from '../hooks.js';
import { toHookDelivery, toStoredHook } from '../hook-rows.js';
import type { HookDelivery, StoredHook } from '../schemas/hook.js';

type Row = Record<string, unknown>;

/** Statements for `hooks` and `hook_deliveries`. Callers wrap multi-statement changes in a transaction. */
export function hookStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO hooks (id, name, workflow_name, codebase_id, signature, inputs, sealed_secret, github, sealed_github_token, created_at)
     VALUES (@id, @name, @workflowName, @codebaseId, @signature, @inputs, @sealedSecret, @github, @sealedGithubToken, @now)
     ON CONFLICT (name) DO NOTHING RETURNING *`,
  );
  const byName = db.prepare('SELECT * FROM hooks WHERE name = ?');
  const byId = db.prepare('SELECT * FROM hooks WHERE id = ?');
  const all = db.prepare('SELECT * FROM hooks ORDER BY name');
  const remove = db.prepare('DELETE FROM hooks WHERE name = ?');
  const replaceToken = db.prepare('UPDATE hooks SET sealed_github_token = ? WHERE id = ? AND github IS NOT NULL RETURNING *');
  const delivery = db.prepare('SELECT * FROM hook_deliveries WHERE hook_id = ? AND delivery_id = ?');
  const deliveryPage = db.prepare(
    'SELECT * FROM hook_deliveries WHERE hook_id = ? ORDER BY received_at DESC, delivery_id DESC LIMIT ? OFFSET ?',
  );
  const deliveryCount = db.prepare('SELECT count(*) AS n FROM hook_deliveries WHERE hook_id = ?');
  const insertDelivery = db.prepare(
    `INSERT INTO hook_deliveries (hook_id, delivery_id, run_id, received_at) VALUES (?, ?, ?, ?) RETURNING *`,
  );
  const insertIgnored = db.prepare(
    `INSERT INTO hook_deliveries (hook_id, delivery_id, ignored, received_at) VALUES (?, ?, ?, ?) RETURNING *`,
  );

  const claimStatus = db.prepare(
    `UPDATE hook_deliveries SET status_claimed_by = @claimant, status_claimed_at = @now
     WHERE hook_id = @hookId AND delivery_id = @deliveryId AND status_comment_id IS NULL
       AND (status_claimed_by IS NULL OR status_claimed_by = @claimant OR status_claimed_at < @staleBefore)`,
  );
  const statusOf = db.prepare('SELECT status_comment_id, status_claimed_by FROM hook_deliveries WHERE hook_id = ? AND delivery_id = ?');
  const recordStatus = db.prepare('UPDATE hook_deliveries SET status_comment_id = ?, status_shown = ? WHERE hook_id = ? AND delivery_id = ?');

  // Through the rowid: SQLite takes DELETE ... LIMIT only when built with an option.
  const pruneOldest = db.prepare(
    `DELETE FROM hook_deliveries WHERE rowid IN
       (SELECT rowid FROM hook_deliveries WHERE received_at < ? ORDER BY received_at LIMIT ?)`,
  );

  return {
    /** Undefined when the name is taken. */
    insert(h: NewHook, now: string): StoredHook | undefined {
      const github = h.github ? JSON.stringify(h.github) : null;
      const row = insert.get({ ...h, inputs: JSON.stringify(h.inputs), github, sealedGithubToken: h.sealedGithubToken ?? null, now }) as Row | undefined;
      return row ? toStoredHook(row) : undefined;
    },
    get(name: string): StoredHook | undefined {
      const row = byName.get(name) as Row | undefined;
      return row ? toStoredHook(row) : undefined;
    },
    exists: (id: string): boolean => byId.get(id) !== undefined,
    list: (): StoredHook[] => all.all().map((r) => toStoredHook(r as Row)),
    remove: (name: string): boolean => remove.run(name).changes > 0,
    replaceToken(id: string, sealed: string): StoredHook | undefined {
      const row = replaceToken.get(sealed, id) as Row | undefined;
      return row ? toStoredHook(row) : undefined;
    },
    delivery(hookId: string, deliveryId: string): HookDelivery | undefined {
      const row = delivery.get(hookId, deliveryId) as Row | undefined;
      return row ? toHookDelivery(row) : undefined;
    },
    /** Newest first. */
    deliveries: (hookId: string, limit: number, offset: number): HookDelivery[] =>
      deliveryPage.all(hookId, limit, offset).map((r) => toHookDelivery(r as Row)),
    deliveryCount: (hookId: string): number => Number((deliveryCount.get(hookId) as { n: number }).n),
    insertDelivery: (hookId: string, deliveryId: string, runId: string, now: string): HookDelivery =>
      toHookDelivery(insertDelivery.get(hookId, deliveryId, runId, now) as Row),
    insertIgnored: (hookId: string, deliveryId: string, reason: string, now: string): HookDelivery =>
      toHookDelivery(insertIgnored.get(hookId, deliveryId, reason, now) as Row),
    claimStatus(claim: { hookId: string; deliveryId: string; claimant: string; staleBefore: string }, now: string): StatusCommentClaim {
      if (claimStatus.run({ ...claim, now }).changes > 0) return { claimed: true };
      const row = statusOf.get(claim.hookId, claim.deliveryId) as Row | undefined;
      return { claimed: false, commentId: row?.status_comment_id == null ? null : Number(row.status_comment_id), claimedBy: row?.status_claimed_by == null ? null : String(row.status_claimed_by) };
    },
    recordStatus: (shown: { hookId: string; deliveryId: string; commentId: number; status: string | null }): void =>
      void recordStatus.run(shown.commentId, shown.status, shown.hookId, shown.deliveryId),
    /** Deletes at most `limit` deliveries received before `before`, oldest first; answers how many. */
    pruneOldest: (before: string, limit: number): number => pruneOldest.run(before, limit).changes,
  };
}
