import type Database from 'better-sqlite3';
import type { NodeSession } from '../node-sessions.js';

/** Statements for `run_node_sessions` (migration 11). */
export function nodeSessionStatements(db: Database.Database) {
  const upsert = db.prepare(
    `INSERT INTO run_node_sessions (run_id, path, provider, session_id, attempt_id, updated_at)
     SELECT @runId, @path, @provider, @sessionId, @attemptId, @now
     WHERE EXISTS (SELECT 1 FROM workflow_runs WHERE id = @runId)
     ON CONFLICT (run_id, path) DO UPDATE SET
       provider = excluded.provider, session_id = excluded.session_id,
       attempt_id = excluded.attempt_id, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare('DELETE FROM run_node_sessions WHERE run_id = ? AND path = ?');
  const get = db.prepare('SELECT provider, session_id, attempt_id FROM run_node_sessions WHERE run_id = ? AND path = ?');
  return {
    set(runId: string, path: string, session: NodeSession | null, now: string): void {
      if (session === null) remove.run(runId, path);
      else upsert.run({ runId, path, now, ...session });
    },
    get(runId: string, path: string): NodeSession | undefined {
      const row = get.get(runId, path) as { provider: string; session_id: string; attempt_id: string } | undefined;
      return row && { provider: row.provider, sessionId: row.session_id, attemptId: row.attempt_id };
    },
  };
}
