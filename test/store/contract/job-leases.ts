import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');

/** JobStore: what keeps a job with a live owner, and what hands it on when the owner fails or is gone. */
export function describeJobLeaseContract(backend: StoreBackend): void {
  describe('job leases', () => {
    const h = useHarness(backend);

    it('renews the leases of the named jobs only, and only for their owner', async () => {
      let now = t0;
      const store = h().open({ clock: () => now });
      await store.createRun(newRun());
      await store.createRun(newRun());
      const kept = await store.claimJob('sup-a', 5_000);
      const lapsed = await store.claimJob('sup-a', 5_000);
      now += 4_000;
      expect(await store.renewJobLeases('sup-a', [kept!.id], 5_000)).toBe(1);
      expect(await store.renewJobLeases('sup-b', [lapsed!.id], 5_000)).toBe(0);
      now += 2_000;
      expect(await store.claimJob('sup-b', 5_000)).toMatchObject({ id: lapsed!.id, lease_owner: 'sup-b' });
      expect(await store.claimJob('sup-b', 5_000)).toBeUndefined();
    });

    it('finishes a job for its holder only: one taken over after its lease lapsed is the new holder\'s to finish', async () => {
      let now = t0;
      const store = h().open({ clock: () => now });
      await store.createRun(newRun());
      const job = (await store.claimJob('sup-a', 5_000))!;
      await store.finishJob(job.id, 'sup-b', 'not mine');
      expect(await store.getJob(job.id)).toMatchObject({ status: 'claimed', lease_owner: 'sup-a', result: null });
      now += 6_000;
      expect(await store.claimJob('sup-b', 5_000)).toMatchObject({ id: job.id, lease_owner: 'sup-b' });
      await store.finishJob(job.id, 'sup-a', 'late');
      expect(await store.getJob(job.id)).toMatchObject({ status: 'claimed', lease_owner: 'sup-b', result: null });
      await store.finishJob(job.id, 'sup-b', 'done');
      expect(await store.getJob(job.id)).toMatchObject({ status: 'done', lease_owner: 'sup-b', result: 'done' });
      // A finished job is not handed out again.
      expect(await store.claimJob('sup-a', 5_000)).toBeUndefined();
    });

    it('gives the jobs of a gone owner back at once, keeping their attempt count', async () => {
      const store = h().open();
      await store.createRun(newRun());
      const held = await store.claimJob('dead', 3_600_000);
      expect(await store.claimJob('heir', 60_000)).toBeUndefined();
      expect(await store.requeueJobsOf(['dead', 'also-gone'])).toBe(1);
      expect(await store.claimJob('heir', 60_000)).toMatchObject({ id: held!.id, lease_owner: 'heir', attempts: 2 });
      expect(await store.requeueJobsOf([])).toBe(0);
    });

    it('holds a failed job back for its retry delay, keeping the error, then hands it out again', async () => {
      let now = t0;
      const store = h().open({ clock: () => now });
      await store.createRun(newRun());
      const job = await store.claimJob('sup-a', 60_000);
      await store.failJobAttempt(job!.id, 'sup-a', 'the database was busy', 2_000);
      // Only the holder may record a failure.
      await store.failJobAttempt(job!.id, 'sup-b', 'not mine', 0);
      now += 1_000;
      expect(await store.claimJob('sup-b', 60_000)).toBeUndefined();
      now += 2_000;
      expect(await store.claimJob('sup-b', 60_000)).toMatchObject({ id: job!.id, attempts: 2, last_error: 'the database was busy' });
    });

    it('takes an attempt that failed for a reason outside the job back from its count, when told so', async () => {
      let now = t0;
      const store = h().open({ clock: () => now });
      await store.createRun(newRun());
      const job = await store.claimJob('sup-a', 60_000);
      // A full disk refused the job's writes: that must not use up one of its tries.
      await store.failJobAttempt(job!.id, 'sup-a', 'Disk full: ...', 1_000, { counted: false });
      now += 2_000;
      const again = await store.claimJob('sup-a', 60_000);
      expect(again).toMatchObject({ id: job!.id, attempts: 1, last_error: 'Disk full: ...' });
      await store.failJobAttempt(again!.id, 'sup-a', 'a bug', 1_000);
      now += 2_000;
      expect(await store.claimJob('sup-a', 60_000)).toMatchObject({ id: job!.id, attempts: 2 });
    });
  });
}
