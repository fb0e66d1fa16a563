import type { Codebase, EnvScan, IsolationEnvironment, NewCodebase, NewIsolationEnvironment } from '../schemas/codebase.js';
import { toCodebase, toIsolationEnvironment } from './rows.js';
import type { Query } from './session.js';

/** Statements for `codebases` and the rows of their isolation environments. */
export function codebaseStatements(q: Query) {
  const get = async (id: string): Promise<Codebase | undefined> => {
    const [row] = await q('SELECT * FROM codebases WHERE id = $1', [id]);
    return row ? toCodebase(row) : undefined;
  };
  return {
    get,
    list: async (): Promise<Codebase[]> => (await q('SELECT * FROM codebases ORDER BY id')).map(toCodebase),
    async register(codebase: NewCodebase, now: string): Promise<{ codebase: Codebase; created: boolean }> {
      const inserted = await q(
        `INSERT INTO codebases (id, name, repository_url, default_cwd, default_branch, kind, managed, allow_env_keys, env_scan, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $9)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          codebase.id, codebase.name, codebase.repository_url, codebase.default_cwd, codebase.default_branch, codebase.kind,
          codebase.managed ? 1 : 0, JSON.stringify(codebase.env_scan), now,
        ],
      );
      return { codebase: (await get(codebase.id))!, created: inserted.length === 1 };
    },
    async setConsent(id: string, allow: boolean, scan: EnvScan, now: string): Promise<Codebase | undefined> {
      await q('UPDATE codebases SET allow_env_keys = $1, env_scan = $2, updated_at = $3 WHERE id = $4', [allow ? 1 : 0, JSON.stringify(scan), now, id]);
      return get(id);
    },
    async delete(id: string): Promise<Codebase | undefined> {
      const existing = await get(id);
      if (!existing) return undefined;
      await q('DELETE FROM isolation_environments WHERE codebase_id = $1', [id]);
      await q('DELETE FROM codebases WHERE id = $1', [id]);
      return existing;
    },
    async insertEnvironment(env: NewIsolationEnvironment, now: string): Promise<IsolationEnvironment> {
      const [row] = await q(
        `INSERT INTO isolation_environments (id, codebase_id, workflow_type, workflow_id, provider, working_path, branch_name,
           created_by_platform, metadata, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $10) RETURNING *`,
        [
          env.id, env.codebase_id, env.workflow_type, env.workflow_id, env.provider, env.working_path, env.branch_name,
          env.created_by_platform, JSON.stringify(env.metadata), now,
        ],
      );
      return toIsolationEnvironment(row!);
    },
    listEnvironments: async (codebaseId: string): Promise<IsolationEnvironment[]> =>
      (await q('SELECT * FROM isolation_environments WHERE codebase_id = $1 ORDER BY created_at, id', [codebaseId])).map(toIsolationEnvironment),
  };
}
