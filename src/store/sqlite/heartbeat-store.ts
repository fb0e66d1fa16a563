import type { HeartbeatStore } from '../heartbeats.js';
import { heartbeatStatements } from './heartbeats-sql.js';
import type { SqliteSession } from './session.js';

/** HeartbeatStore over the session's connection. */
export function sqliteHeartbeatStore(session: SqliteSession): HeartbeatStore {
  const heartbeats = heartbeatStatements(session.db);

  return {
    writeHeartbeat: async (heartbeat) => {
      await session.write('write a heartbeat', () => heartbeats.upsert(heartbeat));
    },

    listHeartbeats: () => session.read('list heartbeats', () => heartbeats.list()),
  };
}
