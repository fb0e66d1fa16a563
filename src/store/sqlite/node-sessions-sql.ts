import type Database from 'better-sqlite3';
import type { NodeSession } from '../node-sessions.js';

/** Statements for `run_node_sessions` (migrations 11 and 15). */
export function nodeSessionStatements(db: Database.Database) {
  const upsert = db.prepare(
    `INSERT INTO run_node_sessions (run_id, path, provider, session_id, attempt_id, completed, updated_at)
     SELECT @runId, @path, @provider, @sessionId, @attemptId, @completed, @now
     WHERE EXISTS (SELECT 1 FROM workflow_runs WHERE id = @runId)
     ON CONFLICT (run_id, path) DO UPDATE SET
       provider = excluded.provider, session_id = excluded.session_id,
       attempt_id = excluded.attempt_id, completed = excluded.completed, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare('DELETE FROM run_node_sessions WHERE run_id = ? AND path = ?');
  const get = db.prepare('SELECT provider, session_id, attempt_id, completed FROM run_node_sessions WHERE run_id = ? AND path = ?');
  return {
    set(runId: string, path: string, session: NodeSession | null, now: string): void {
      if (session === null) remove.run(runId, path);
      else upsert.run({ runId, path, now, provider: session.provider, sessionId: session.sessionId, attemptId: session.attemptId, completed: session.completed ? 1 : 0 });
    },
    get(runId: string, path: string): NodeSession | undefined {
      const row = get.get(runId, path) as { provider: string; session_id: string; attempt_id: string; completed: number } | undefined;
      return row && { provider: row.provider, sessionId: row.session_id, attemptId: row.attempt_id, completed: row.completed === 1 };
    },
  };
}
