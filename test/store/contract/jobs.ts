import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** JobStore: the queue between the API process and the supervisors. */
export function describeJobContract(backend: StoreBackend): void {
  describe('jobs', () => {
    const h = useHarness(backend);

    it('queues a start job with every new run, and hands it to exactly one claimant', async () => {
      const api = h().open();
      const a = h().open();
      const b = h().open();
      const run = await api.createRun(newRun());
      expect(run.status).toBe('pending');

      const [first, second] = await Promise.all([a.claimJob('sup-a', 10_000), b.claimJob('sup-b', 10_000)]);
      const claimed = [first, second].filter(Boolean);
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({ kind: 'start_run', run_id: run.id, status: 'claimed' });
    });

    it('gives a job back when its claimant lets the lease expire', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await store.createRun(newRun());
      const job = await store.claimJob('sup-a', 5_000);
      expect(job?.run_id).toBe(run.id);
      expect(await store.claimJob('sup-b', 5_000)).toBeUndefined();
      now += 6_000;
      const reclaimed = await store.claimJob('sup-b', 5_000);
      expect(reclaimed).toMatchObject({ id: job?.id, lease_owner: 'sup-b' });
    });

    it('does not hand a finished job out again', async () => {
      const store = h().open();
      await store.createRun(newRun());
      const job = await store.claimJob('sup-a', 10_000);
      await store.finishJob(job!.id, 'sup-a', 'started');
      expect(await store.claimJob('sup-a', 10_000)).toBeUndefined();
    });

    it('leaves jobs of a run owned by another live supervisor to that supervisor', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const start = await store.claimJob('sup-a', 10_000);
      await store.acquireRun({
        runId: run.id, ownerId: 'sup-a', leaseMs: 10_000, fromStatuses: ['pending'], status: 'running', events: [],
      });
      await store.finishJob(start!.id, 'sup-a', 'started');
      await store.enqueueJob('cancel_run', run.id);
      expect(await store.claimJob('sup-b', 10_000)).toBeUndefined();
      expect(await store.claimJob('sup-a', 10_000)).toMatchObject({ kind: 'cancel_run' });
    });
  });
}
