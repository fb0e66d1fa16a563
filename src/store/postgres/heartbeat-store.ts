import type { HeartbeatStore } from '../heartbeats.js';
import { toHeartbeat } from './rows.js';
import type { PgSession } from './session.js';

/** HeartbeatStore over the session's pool: one upserted row per supervisor; rows silent for a day are forgotten. */
export function pgHeartbeatStore(session: PgSession): HeartbeatStore {
  return {
    writeHeartbeat: async (hb) => {
      await session.write('write a heartbeat', async (q) => {
        await q(
          `INSERT INTO supervisor_heartbeats (id, pid, hostname, started_at, heartbeat_at, state, concurrency)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, state = excluded.state, concurrency = excluded.concurrency`,
          [hb.id, hb.pid, hb.hostname, hb.started_at, hb.heartbeat_at, hb.state, JSON.stringify(hb.concurrency)],
        );
        await q('DELETE FROM supervisor_heartbeats WHERE heartbeat_at < $1 AND id <> $2', [
          new Date(Date.parse(hb.heartbeat_at) - 24 * 3600_000).toISOString(), hb.id,
        ]);
      });
    },
    listHeartbeats: () =>
      session.read('list heartbeats', async (q) => (await q('SELECT * FROM supervisor_heartbeats ORDER BY heartbeat_at DESC')).map(toHeartbeat)),
  };
}
