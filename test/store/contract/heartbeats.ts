import { describe, expect, it } from 'vitest';
import { useHarness, type StoreBackend } from './backend.js';

/** HeartbeatStore: what `/api/health` reads about the supervisors. */
export function describeHeartbeatContract(backend: StoreBackend): void {
  describe('supervisor heartbeats', () => {
    const h = useHarness(backend);

    it('keeps the freshest beat per supervisor and forgets supervisors silent for a day', async () => {
      const store = h().open();
      const beat = (id: string, at: string) => ({
        id, pid: 1, hostname: 'h', started_at: at, heartbeat_at: at, state: 'running' as const,
        concurrency: { limit: 8, perRunLimit: 8, active: 0, queued: 0, runs: 0, perProvider: {} },
      });
      await store.writeHeartbeat(beat('old', '2026-01-01T00:00:00.000Z'));
      await store.writeHeartbeat(beat('live', '2026-01-01T12:00:00.000Z'));
      await store.writeHeartbeat(beat('live', '2026-01-02T06:00:00.000Z'));
      expect((await store.listHeartbeats()).map((hb) => [hb.id, hb.heartbeat_at])).toEqual([['live', '2026-01-02T06:00:00.000Z']]);
    });
  });
}
