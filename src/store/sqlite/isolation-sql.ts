import type Database from 'better-sqlite3';
import type { ClaimRunIsolation, ClaimRunIsolationResult, IsolationEnvironment } from '../schemas/codebase.js';
import type { IdleEnvironmentRemoval } from '../codebases.js';
import { toIsolationEnvironment } from '../rows.js';
import { decideIsolationClaim, isIdle } from '../rules/isolation-locks.js';

type Row = Record<string, unknown>;

/**
 * Statements for the locks on `isolation_environments`: a lock is a lease (locked_by_run,
 * lock_owner, lock_expires_at) taken when a run starts in the environment, renewed with the
 * run's lease and released at its terminal transition. Callers wrap them in a transaction.
 */
export function isolationStatements(db: Database.Database) {
  const ofRun = db.prepare(
    `SELECT * FROM isolation_environments
     WHERE codebase_id = ? AND workflow_type = ? AND workflow_id = ? AND status = 'active'`,
  );
  const byBranch = db.prepare(
    `SELECT * FROM isolation_environments WHERE codebase_id = ? AND branch_name = ? AND status = 'active'`,
  );
  const checkoutUses = db.prepare(
    `SELECT * FROM isolation_environments WHERE codebase_id = ? AND provider = 'checkout' AND status = 'active'`,
  );
  const insert = db.prepare(
    `INSERT INTO isolation_environments (id, codebase_id, workflow_type, workflow_id, provider,
       working_path, branch_name, created_by_platform, metadata, status, locked_by_run, lock_owner,
       lock_expires_at, created_at, updated_at)
     VALUES (@id, @codebase_id, @workflow_type, @workflow_id, @provider, @working_path, @branch_name,
       @created_by_platform, @metadata, 'active', @runId, @owner, @until, @now, @now)`,
  );
  // Taken when the rules allow it (rules/isolation-locks.ts mayLock).
  const lock = db.prepare(
    `UPDATE isolation_environments
     SET locked_by_run = @runId, lock_owner = @owner, lock_expires_at = @until, updated_at = @now
     WHERE id = @id RETURNING *`,
  );
  const byId = db.prepare('SELECT * FROM isolation_environments WHERE id = ?');
  const setRunPath = db.prepare('UPDATE workflow_runs SET working_path = ? WHERE id = ? AND owner_id = ?');
  const renew = db.prepare(
    `UPDATE isolation_environments SET lock_expires_at = ?
     WHERE lock_owner = ? AND locked_by_run IN (SELECT value FROM json_each(?))`,
  );
  const unlock = db.prepare(
    `UPDATE isolation_environments
     SET locked_by_run = NULL, lock_owner = NULL, lock_expires_at = NULL, updated_at = ?
     WHERE locked_by_run = ? AND provider <> 'checkout'`,
  );
  // A run's use of the codebase checkout leaves nothing behind to keep.
  const dropCheckoutUse = db.prepare(`DELETE FROM isolation_environments WHERE locked_by_run = ? AND provider = 'checkout'`);
  const remove = db.prepare('DELETE FROM isolation_environments WHERE id = ?');
  const byCodebase = db.prepare(`SELECT * FROM isolation_environments WHERE codebase_id = ? ORDER BY created_at, id`);

  const envOf = (row: unknown) => toIsolationEnvironment(row as Row);

  return {
    /** See CodebaseStore.claimRunIsolation; what it may do is decided by rules/isolation-locks.ts. */
    claim(input: ClaimRunIsolation, now: string, until: string): ClaimRunIsolationResult {
      const { env, runId, ownerId } = input;
      const existing = ofRun.get(env.codebase_id, env.workflow_type, env.workflow_id) as Row | undefined;
      const onBranch = !existing && env.branch_name !== null ? (byBranch.get(env.codebase_id, env.branch_name) as Row | undefined) : undefined;
      const uses = !existing && env.provider === 'checkout' ? checkoutUses.all(env.codebase_id) : [];
      const decision = decideIsolationClaim({
        runId, now, existing: existing && envOf(existing), onBranch: onBranch && envOf(onBranch), checkoutUses: uses.map(envOf),
      });
      switch (decision.kind) {
        case 'lock_existing':
          return { kind: 'claimed', env: envOf(lock.get({ id: decision.env.id, runId, owner: ownerId, until, now })), created: false };
        case 'create':
          insert.run({ ...env, metadata: JSON.stringify(env.metadata), runId, owner: ownerId, until, now });
          return { kind: 'claimed', env: envOf(byId.get(env.id)), created: true };
        default:
          return decision;
      }
    },
    setRunWorkingPath: (runId: string, ownerId: string, path: string): boolean => setRunPath.run(path, runId, ownerId).changes === 1,
    renew: (ownerId: string, runIds: readonly string[], until: string): number =>
      renew.run(until, ownerId, JSON.stringify(runIds)).changes,
    /** Releases every lock the run holds: worktrees stay (status active, unlocked); a checkout use goes. */
    release(runId: string, now: string): void {
      unlock.run(now, runId);
      dropCheckoutUse.run(runId);
    },
    remove: (id: string): void => void remove.run(id),
    /** See CodebaseStore.removeIdleIsolationEnvironment. */
    removeIdle(codebaseId: string, id: string, now: string): IdleEnvironmentRemoval {
      const row = byId.get(id) as Row | undefined;
      if (!row || row.codebase_id !== codebaseId) return { kind: 'not_found' };
      const env = envOf(row);
      if (!isIdle(env, now)) return { kind: 'locked', env };
      remove.run(id);
      return { kind: 'removed', env };
    },
    listOf: (codebaseId: string): IsolationEnvironment[] => byCodebase.all(codebaseId).map(envOf),
  };
}
