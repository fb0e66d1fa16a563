import { describe, expect, it } from 'vitest';
import { CairnError } from '../../../src/shared/errors.js';
import { newEvent, newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/**
 * How long the lock is held in the first test: past 10 s, so a store that blocked its thread for
 * one long busy wait, or gave up after it, fails the test.
 */
const lockHeldMs = 10_500;

const beat = () => ({
  id: 'sup-a', pid: 1, hostname: 'h', started_at: new Date().toISOString(), heartbeat_at: new Date().toISOString(),
  state: 'running' as const, concurrency: { limit: 1, perRunLimit: 1, active: 0, queued: 0, runs: 0, perProvider: {} },
});

/** Every Store, while another process keeps the database busy: wait without stalling, then give up clearly. */
export function describeAvailabilityContract(backend: StoreBackend): void {
  describe('a database another process keeps busy', () => {
    const h = useHarness(backend);

    it('lets writes wait out a long-held write lock while the event loop and reads go on, surfacing no error', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const lock = await h().holdWriteLock();

      let settled = 0;
      const track = <T>(p: Promise<T>) => p.finally(() => settled++);
      const writes = Promise.all([
        track(store.appendEvents([newEvent(run, 'a'), newEvent(run, 'b')])),
        track(store.enqueueJob('cancel_run', run.id)),
        track(store.writeHeartbeat(beat())),
        track(store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [newEvent(run, 'c')] })),
      ]);
      // While the writes wait, this test's own loop keeps turning and the same store answers reads.
      let reads = 0;
      const releaseAt = Date.now() + lockHeldMs;
      while (Date.now() < releaseAt) {
        expect((await store.getRun(run.id))?.status).toBe('pending');
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(settled).toBe(0);
      expect(reads).toBeGreaterThan(1);

      await lock.release();
      const [appended, job, , acquired] = await writes;
      expect(appended.map((e) => e.event_type)).toEqual(['a', 'b']);
      expect(job).toMatchObject({ kind: 'cancel_run', run_id: run.id, status: 'queued' });
      expect(acquired).toMatchObject({ owner_id: 'sup-a', status: 'running' });
      expect((await store.listRunEvents(run.id)).map((e) => e.event_type).sort()).toEqual(['a', 'b', 'c']);
      expect((await store.listHeartbeats()).map((hb) => hb.id)).toEqual(['sup-a']);
    });

    it('fails with STORE_UNAVAILABLE, saying what to do, once the lock outlasts the retry budget, and recovers after', async () => {
      const store = h().open({ busyBudgetMs: 1_000 });
      const run = await store.createRun(newRun());
      const held = (await store.claimJob('sup-a', 60_000))!;
      const lock = await h().holdWriteLock();

      // Every kind of write at once, claims and finishes too (one statement each on PostgreSQL).
      const [append, ...others] = await Promise.allSettled([
        store.appendEvents([newEvent(run, 'lost')]),
        store.enqueueJob('cancel_run', run.id),
        store.claimJob('sup-a', 60_000),
        store.finishJob(held.id, 'sup-a', 'done'),
      ]);
      expect(append).toMatchObject({ status: 'rejected', reason: expect.any(CairnError) });
      expect(append).toMatchObject({ reason: { code: 'STORE_UNAVAILABLE', message: expect.stringMatching(/retry later/i) } });
      for (const other of others) expect(other).toMatchObject({ status: 'rejected', reason: { code: 'STORE_UNAVAILABLE' } });

      await lock.release();
      expect((await store.appendEvents([newEvent(run, 'kept')])).map((e) => e.event_type)).toEqual(['kept']);
      expect((await store.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['kept']);
      await store.finishJob(held.id, 'sup-a', 'done');
      expect((await store.getJob(held.id))?.status).toBe('done');
    });

    it('fails a write still waiting for the lock as soon as its store is closed', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const lock = await h().holdWriteLock();
      const job = store.enqueueJob('cancel_run', run.id);
      await store.getRun(run.id); // the job's write is now waiting between tries
      await store.close();
      await expect(job).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringMatching(/closed/) });
      await lock.release();
    });
  });
}
