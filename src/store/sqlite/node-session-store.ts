import type { NodeSessionStore } from '../node-sessions.js';
import { nodeSessionStatements } from './node-sessions-sql.js';
import type { SqliteSession } from './session.js';

/** NodeSessionStore over the session's connection. */
export function sqliteNodeSessionStore(session: SqliteSession): NodeSessionStore {
  const sessions = nodeSessionStatements(session.db);
  return {
    setNodeSession: (runId, path, value) =>
      session.write('remember a node session', () => sessions.set(runId, path, value, session.now())),
    getNodeSession: (runId, path) => session.read('read a node session', () => sessions.get(runId, path)),
  };
}
