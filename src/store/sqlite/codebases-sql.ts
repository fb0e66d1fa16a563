import type Database from 'better-sqlite3';
import type { Codebase, EnvScan, IsolationEnvironment, NewCodebase, NewIsolationEnvironment } from '../schemas/codebase.js';

type Row = Record<string, unknown>;

/** Row → object: JSON columns are text and booleans are 0/1. Trusted: only we write them. */
function toCodebase(row: Row): Codebase {
  return {
    id: row.id as string,
    name: row.name as string,
    repository_url: (row.repository_url as string | null) ?? null,
    default_cwd: row.default_cwd as string,
    default_branch: (row.default_branch as string | null) ?? null,
    kind: row.kind as Codebase['kind'],
    managed: row.managed === 1,
    allow_env_keys: row.allow_env_keys === 1,
    env_scan: JSON.parse(row.env_scan as string) as EnvScan,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

export function toIsolationEnvironment(row: Row): IsolationEnvironment {
  return {
    id: row.id as string,
    codebase_id: row.codebase_id as string,
    workflow_type: row.workflow_type as string,
    workflow_id: row.workflow_id as string,
    provider: row.provider as string,
    working_path: row.working_path as string,
    branch_name: (row.branch_name as string | null) ?? null,
    created_by_platform: (row.created_by_platform as string | null) ?? null,
    metadata: JSON.parse(row.metadata as string) as IsolationEnvironment['metadata'],
    status: row.status as IsolationEnvironment['status'],
    locked_by_run: (row.locked_by_run as string | null) ?? null,
    lock_owner: (row.lock_owner as string | null) ?? null,
    lock_expires_at: (row.lock_expires_at as string | null) ?? null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

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
