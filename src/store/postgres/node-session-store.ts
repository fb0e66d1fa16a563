import type { NodeSessionStore } from '../node-sessions.js';
import { fenceRefusal } from '../rules/write-fence.js';
import { eventStatements } from './events-sql.js';
import type { PgSession } from './session.js';

/** NodeSessionStore over the session's pool (`run_node_sessions`, gone with its run); `writer` as in pgEventStore. */
export function pgNodeSessionStore(session: PgSession, writer?: string): NodeSessionStore {
  return {
    setNodeSession: async (runId, path, value) => {
      await session.write('remember a node session', async (q) => {
        // Fenced: the run's owner is read under its row lock, kept until this commits.
        const refused = writer === undefined ? undefined : fenceRefusal([runId], await eventStatements(q).lockOwners([runId]), writer);
        if (refused) throw refused;
        if (value === null) {
          await q('DELETE FROM run_node_sessions WHERE run_id = $1 AND path = $2', [runId, path]);
          return;
        }
        await q(
          `INSERT INTO run_node_sessions (run_id, path, provider, session_id, attempt_id, completed, updated_at)
           SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM workflow_runs WHERE id = $1)
           ON CONFLICT (run_id, path) DO UPDATE SET provider = excluded.provider, session_id = excluded.session_id,
             attempt_id = excluded.attempt_id, completed = excluded.completed, updated_at = excluded.updated_at`,
          [runId, path, value.provider, value.sessionId, value.attemptId, value.completed ? 1 : 0, session.now()],
        );
      });
    },
    getNodeSession: (runId, path) =>
      session.read('read a node session', async (q) => {
        const [row] = await q('SELECT provider, session_id, attempt_id, completed FROM run_node_sessions WHERE run_id = $1 AND path = $2', [runId, path]);
        return row && { provider: row.provider as string, sessionId: row.session_id as string, attemptId: row.attempt_id as string, completed: row.completed === 1 };
      }),
  };
}
