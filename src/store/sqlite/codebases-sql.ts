import type Database from 'better-sqlite3';
import { toCodebase, toIsolationEnvironment } from '../rows.js';
import type { Codebase, EnvScan, IsolationEnvironment, NewCodebase, NewIsolationEnvironment } from '../schemas/codebase.js';

type Row = Record<string, unknown>;

export function codebaseStatements(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO codebases (id, name, repository_url, default_cwd, default_branch, kind, managed,
       allow_env_keys, env_scan, created_at, updated_at)
     VALUES (@id, @name, @repository_url, @default_cwd, @default_branch, @kind, @managed, 0,
       @env_scan, @now, @now)
     ON CONFLICT (id) DO NOTHING`,
  );
  const byId = db.prepare('SELECT * FROM codebases WHERE id = ?');
  const all = db.prepare('SELECT * FROM codebases ORDER BY id');
  const consent = db.prepare(
    'UPDATE codebases SET allow_env_keys = @allow, env_scan = @env_scan, updated_at = @now WHERE id = @id',
  );
  const remove = db.prepare('DELETE FROM codebases WHERE id = ?');
  const removeEnvironments = db.prepare('DELETE FROM isolation_environments WHERE codebase_id = ?');
  const insertEnvironment = db.prepare(
    `INSERT INTO isolation_environments (id, codebase_id, workflow_type, workflow_id, provider,
       working_path, branch_name, created_by_platform, metadata, status, created_at, updated_at)
     VALUES (@id, @codebase_id, @workflow_type, @workflow_id, @provider, @working_path,
       @branch_name, @created_by_platform, @metadata, 'active', @now, @now)`,
  );
  const environmentById = db.prepare('SELECT * FROM isolation_environments WHERE id = ?');
  const environmentsOf = db.prepare(
    'SELECT * FROM isolation_environments WHERE codebase_id = ? ORDER BY created_at, id',
  );

  const get = (id: string): Codebase | undefined => {
    const row = byId.get(id) as Row | undefined;
    return row ? toCodebase(row) : undefined;
  };

  return {
    get,
    list: (): Codebase[] => all.all().map((row) => toCodebase(row as Row)),
    /** Inserts unless present; answers the stored row and whether it is new. */
    register(codebase: NewCodebase, now: string): { codebase: Codebase; created: boolean } {
      const { changes } = insert.run({
        ...codebase,
        managed: codebase.managed ? 1 : 0,
        env_scan: JSON.stringify(codebase.env_scan),
        now,
      });
      return { codebase: get(codebase.id)!, created: changes === 1 };
    },
    setConsent(id: string, allow: boolean, scan: EnvScan, now: string): Codebase | undefined {
      consent.run({ id, allow: allow ? 1 : 0, env_scan: JSON.stringify(scan), now });
      return get(id);
    },
    /** The environments first: the foreign key cascades too, but the delete must not depend on the pragma. */
    delete(id: string): Codebase | undefined {
      const existing = get(id);
      if (!existing) return undefined;
      removeEnvironments.run(id);
      remove.run(id);
      return existing;
    },
    insertEnvironment(env: NewIsolationEnvironment, now: string): IsolationEnvironment {
      insertEnvironment.run({ ...env, metadata: JSON.stringify(env.metadata), now });
      return toIsolationEnvironment(environmentById.get(env.id) as Row);
    },
    listEnvironments: (codebaseId: string): IsolationEnvironment[] =>
      environmentsOf.all(codebaseId).map((row) => toIsolationEnvironment(row as Row)),
  };
}
