import type Database from 'better-sqlite3';
import type { SupervisorHeartbeat } from '../schemas/heartbeat.js';
import { toHeartbeat } from '../rows.js';

export function heartbeatStatements(db: Database.Database) {
  const upsert = db.prepare(
    `INSERT INTO supervisor_heartbeats (id, pid, hostname, started_at, heartbeat_at, state, concurrency)
     VALUES (@id, @pid, @hostname, @started_at, @heartbeat_at, @state, @concurrency)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,
       state = excluded.state, concurrency = excluded.concurrency`,
  );
  const all = db.prepare('SELECT * FROM supervisor_heartbeats ORDER BY heartbeat_at DESC');
  // Each supervisor start writes a new row; rows silent for a day belong to supervisors long gone.
  const prune = db.prepare(`DELETE FROM supervisor_heartbeats WHERE heartbeat_at < ? AND id <> ?`);
  return {
    upsert(hb: SupervisorHeartbeat): void {
      upsert.run({ ...hb, concurrency: JSON.stringify(hb.concurrency) });
      prune.run(new Date(Date.parse(hb.heartbeat_at) - 24 * 3600_000).toISOString(), hb.id);
    },
    list(): SupervisorHeartbeat[] {
      return all.all().map((r) => toHeartbeat(r as Record<string, unknown>));
    },
  };
}
