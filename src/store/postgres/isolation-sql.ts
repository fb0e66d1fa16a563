import type { ClaimRunIsolation, ClaimRunIsolationResult } from '../schemas/codebase.js';
import type { IdleEnvironmentRemoval } from '../codebases.js';
import { decideIsolationClaim, isIdle } from '../rules/isolation-locks.js';
import { toIsolationEnvironment } from './rows.js';
import type { Query } from './session.js';

/**
 * Statements for the locks on `isolation_environments` (a lock is a lease, like a run's). A
 * claim serialises on its codebase's row (FOR NO KEY UPDATE), so two runs claiming a branch or
 * the checkout of one codebase decide one after the other.
 */
export function isolationStatements(q: Query) {
  const envOf = toIsolationEnvironment;
  return {
    async claim(input: ClaimRunIsolation, now: string, until: string): Promise<ClaimRunIsolationResult> {
      const { env, runId, ownerId } = input;
      await q('SELECT id FROM codebases WHERE id = $1 FOR NO KEY UPDATE', [env.codebase_id]);
      const [existing] = await q(
        `SELECT * FROM isolation_environments WHERE codebase_id = $1 AND workflow_type = $2 AND workflow_id = $3 AND status = 'active'`,
        [env.codebase_id, env.workflow_type, env.workflow_id],
      );
      const [onBranch] = !existing && env.branch_name !== null
        ? await q(`SELECT * FROM isolation_environments WHERE codebase_id = $1 AND branch_name = $2 AND status = 'active'`, [env.codebase_id, env.branch_name])
        : [];
      const uses = !existing && env.provider === 'checkout'
        ? await q(`SELECT * FROM isolation_environments WHERE codebase_id = $1 AND provider = 'checkout' AND status = 'active'`, [env.codebase_id])
        : [];
      const decision = decideIsolationClaim({
        runId, now, existing: existing && envOf(existing), onBranch: onBranch && envOf(onBranch), checkoutUses: uses.map(envOf),
      });
      switch (decision.kind) {
        case 'lock_existing': {
          const [row] = await q(
            `UPDATE isolation_environments SET locked_by_run = $2, lock_owner = $3, lock_expires_at = $4, updated_at = $5
             WHERE id = $1 RETURNING *`,
            [decision.env.id, runId, ownerId, until, now],
          );
          return { kind: 'claimed', env: envOf(row!), created: false };
        }
        case 'create': {
          const [row] = await q(
            `INSERT INTO isolation_environments (id, codebase_id, workflow_type, workflow_id, provider, working_path, branch_name,
               created_by_platform, metadata, status, locked_by_run, lock_owner, lock_expires_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $11, $12, $13, $13) RETURNING *`,
            [
              env.id, env.codebase_id, env.workflow_type, env.workflow_id, env.provider, env.working_path, env.branch_name,
              env.created_by_platform, JSON.stringify(env.metadata), runId, ownerId, until, now,
            ],
          );
          return { kind: 'claimed', env: envOf(row!), created: true };
        }
        default:
          return decision;
      }
    },
    async setRunWorkingPath(runId: string, ownerId: string, path: string): Promise<boolean> {
      return (await q('UPDATE workflow_runs SET working_path = $1 WHERE id = $2 AND owner_id = $3 RETURNING id', [path, runId, ownerId])).length === 1;
    },
    async renew(ownerId: string, runIds: readonly string[], until: string): Promise<number> {
      return (
        await q(
          'UPDATE isolation_environments SET lock_expires_at = $1 WHERE lock_owner = $2 AND locked_by_run = ANY($3::text[]) RETURNING id',
          [until, ownerId, [...runIds]],
        )
      ).length;
    },
    /** Releases every lock the run holds: worktrees stay (status active, unlocked); a checkout use goes. */
    async release(runId: string, now: string): Promise<void> {
      await q(
        `UPDATE isolation_environments SET locked_by_run = NULL, lock_owner = NULL, lock_expires_at = NULL, updated_at = $1
         WHERE locked_by_run = $2 AND provider <> 'checkout'`,
        [now, runId],
      );
      await q(`DELETE FROM isolation_environments WHERE locked_by_run = $1 AND provider = 'checkout'`, [runId]);
    },
    async remove(id: string): Promise<void> {
      await q('DELETE FROM isolation_environments WHERE id = $1', [id]);
    },
    async removeIdle(codebaseId: string, id: string, now: string): Promise<IdleEnvironmentRemoval> {
      const [row] = await q('SELECT * FROM isolation_environments WHERE id = $1 FOR UPDATE', [id]);
      if (!row || row.codebase_id !== codebaseId) return { kind: 'not_found' };
      const env = envOf(row);
      if (!isIdle(env, now)) return { kind: 'locked', env };
      await q('DELETE FROM isolation_environments WHERE id = $1', [id]);
      return { kind: 'removed', env };
    },
  };
}
