import type { NodeSessionStore } from '../node-sessions.js';
import { fenceRefusal } from '../rules/write-fence.js';
import { eventStatements } from './events-sql.js';
import { nodeSessionStatements } from './node-sessions-sql.js';
import type { SqliteSession } from './session.js';

/** NodeSessionStore over the session's connection; `writer` as in sqliteEventStore. */
export function sqliteNodeSessionStore(session: SqliteSession, writer?: string): NodeSessionStore {
  const sessions = nodeSessionStatements(session.db);
  const events = eventStatements(session.db);
  return {
    setNodeSession: (runId, path, value) =>
      session.write('remember a node session', () => {
        // Fenced: the run's owner is read inside the write transaction (one writer at a time).
        const refused = writer === undefined ? undefined : fenceRefusal([runId], events.owners([runId]), writer);
        if (refused) throw refused;
        sessions.set(runId, path, value, session.now());
      }),
    getNodeSession: (runId, path) => session.read('read a node session', () => sessions.get(runId, path)),
  };
}
