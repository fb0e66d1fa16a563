import { describe, expect, it } from 'vitest';
import { isFenced } from '../../../src/store/rules/write-fence.js';
import type { Job } from '../../../src/store/schemas/job.js';
import { newEvent, newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/**
 * Fencing (store/rules/write-fence.ts): a store opened for a supervisor (`writer`) writes a run's
 * events only while that supervisor owns the run, decided in the transaction that inserts them.
 */
export function describeWriteFenceContract(backend: StoreBackend): void {
  describe('write fence', () => {
    const h = useHarness(backend);
    const acquire = (store: ReturnType<ReturnType<typeof h>['open']>, runId: string, ownerId: string, previousOwner?: string) =>
      store.acquireRun({
        runId, ownerId, leaseMs: 60_000, fromStatuses: ['pending', 'running'], status: 'running', events: [],
        ...(previousOwner ? { previousOwner } : {}),
      });

    it("a supervisor's events for a run it owns are written; once another took the run over, none are, and the refusal says so", async () => {
      const admin = h().open();
      const paused = h().open({ writer: 'sup-a' });
      const run = await admin.createRun(newRun());
      await acquire(admin, run.id, 'sup-a');
      expect(await paused.appendEvents([newEvent(run, 'node_started')])).toHaveLength(1);

      await acquire(admin, run.id, 'sup-b', 'sup-a');
      const refused = await paused.appendEvents([newEvent(run, 'node_completed')]).catch((err: unknown) => err);
      expect(isFenced(refused)).toBe(true);
      expect((refused as Error).message).toContain('owned by supervisor sup-b, not by sup-a');
      expect((await admin.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['node_started']);

      // The new owner's writes go through.
      const heir = h().open({ writer: 'sup-b' });
      expect(await heir.appendEvents([newEvent(run, 'node_completed')])).toHaveLength(1);
    });

    it('fences each append alone: one refused in a batch of appends made at once leaves the others written', async () => {
      const admin = h().open();
      const store = h().open({ writer: 'sup-a' });
      const kept = await admin.createRun(newRun());
      const lost = await admin.createRun(newRun());
      await acquire(admin, kept.id, 'sup-a');
      await acquire(admin, lost.id, 'sup-a');
      await acquire(admin, lost.id, 'sup-b', 'sup-a');
      const [ok, refused] = await Promise.allSettled([
        store.appendEvents([newEvent(kept, 'k')]),
        store.appendEvents([newEvent(lost, 'l')]),
      ]);
      expect(ok).toMatchObject({ status: 'fulfilled' });
      expect(refused.status === 'rejected' && isFenced(refused.reason)).toBe(true);
      expect((await admin.listRunEvents(kept.id)).map((e) => e.event_type)).toEqual(['k']);
      expect(await admin.listRunEvents(lost.id)).toEqual([]);
    });

    it("a job a supervisor queues on behalf of a run (a parent cancelling its child) is queued while it owns that run; once another took it over, it is refused and nothing is queued", async () => {
      const admin = h().open();
      const paused = h().open({ writer: 'sup-a' });
      const parent = await admin.createRun(newRun());
      const child = await admin.createRun(newRun());
      await acquire(admin, parent.id, 'sup-a');
      const jobsOf = async (runId: string) => (await admin.listRunJobs(runId)).filter((j) => j.kind !== 'start_run').map((j) => j.kind);
      await paused.enqueueJob('resume_run', child.id, {}, { onBehalfOf: parent.id });
      expect(await jobsOf(child.id)).toEqual(['resume_run']);

      await acquire(admin, parent.id, 'sup-b', 'sup-a');
      const refused = await paused.enqueueJob('cancel_run', child.id, {}, { onBehalfOf: parent.id }).catch((err: unknown) => err);
      expect(isFenced(refused)).toBe(true);
      expect((refused as Error).message).toContain('owned by supervisor sup-b, not by sup-a');
      expect(await jobsOf(child.id)).toEqual(['resume_run']);

      // The new owner may; a store for no supervisor (the API) queues as before; so does a job asked on behalf of no run.
      await h().open({ writer: 'sup-b' }).enqueueJob('cancel_run', child.id, {}, { onBehalfOf: parent.id });
      await admin.enqueueJob('cancel_run', child.id, {}, { onBehalfOf: parent.id });
      await paused.enqueueJob('cancel_run', child.id);
      expect(await jobsOf(child.id)).toEqual(['resume_run', 'cancel_run', 'cancel_run', 'cancel_run']);
    });

    it("a node's session record is kept while its supervisor owns the run; once another took it over, it is neither replaced nor forgotten by the paused one", async () => {
      const admin = h().open();
      const paused = h().open({ writer: 'sup-a' });
      const run = await admin.createRun(newRun());
      await acquire(admin, run.id, 'sup-a');
      const session = (sessionId: string) => ({ provider: 'claude', sessionId, attemptId: `at-${sessionId}`, completed: false });
      await paused.setNodeSession(run.id, 'a', session('s1'));

      await acquire(admin, run.id, 'sup-b', 'sup-a');
      for (const value of [session('s2'), null]) {
        const refused = await paused.setNodeSession(run.id, 'a', value).catch((err: unknown) => err);
        expect(isFenced(refused)).toBe(true);
        expect((refused as Error).message).toContain('owned by supervisor sup-b, not by sup-a');
      }
      expect(await admin.getNodeSession(run.id, 'a')).toMatchObject({ sessionId: 's1' });

      await h().open({ writer: 'sup-b' }).setNodeSession(run.id, 'a', session('s3'));
      expect(await admin.getNodeSession(run.id, 'a')).toMatchObject({ sessionId: 's3' });
      await admin.setNodeSession(run.id, 'a', null);
      expect(await admin.getNodeSession(run.id, 'a')).toBeUndefined();
    });

    it("a run's worktree lock is taken and released only by its owner: a paused supervisor neither takes it back nor releases the new owner's", async () => {
      const admin = h().open();
      const paused = h().open({ writer: 'sup-a' });
      const heir = h().open({ writer: 'sup-b' });
      await admin.registerCodebase({
        id: 'o/r', name: 'o/r', repository_url: 'https://example.test/o/r.git', default_cwd: '/src/o/r', default_branch: 'main',
        kind: 'repo', managed: false, env_scan: { status: 'clean', files: [], keys: [], scanned_at: '2026-01-01T00:00:00.000Z' },
      });
      const run = await admin.createRun({ ...newRun(), codebaseId: 'o/r' });
      const env = { id: 'e1', codebase_id: 'o/r', workflow_type: 'run', workflow_id: run.id, provider: 'worktree', working_path: `/wt/${run.id}`, branch_name: 'x', created_by_platform: 'cairn', metadata: {} };
      const claim = (store: typeof admin, ownerId: string) => store.claimRunIsolation({ runId: run.id, ownerId, leaseMs: 60_000, env });
      const lockOf = async () => (await admin.listIsolationEnvironments('o/r'))[0];
      await acquire(admin, run.id, 'sup-a');
      expect(await claim(paused, 'sup-a')).toMatchObject({ kind: 'claimed', env: { lock_owner: 'sup-a' } });

      await acquire(admin, run.id, 'sup-b', 'sup-a');
      expect(await claim(heir, 'sup-b')).toMatchObject({ kind: 'claimed', env: { id: 'e1', lock_owner: 'sup-b' } });
      const retaken = await claim(paused, 'sup-a').catch((err: unknown) => err);
      expect(isFenced(retaken)).toBe(true);
      const released = await paused.releaseIsolationLocks(run.id).catch((err: unknown) => err);
      expect(isFenced(released)).toBe(true);
      expect((released as Error).message).toContain('owned by supervisor sup-b, not by sup-a');
      expect(await lockOf()).toMatchObject({ locked_by_run: run.id, lock_owner: 'sup-b' });

      await heir.releaseIsolationLocks(run.id);
      expect(await lockOf()).toMatchObject({ locked_by_run: null, lock_owner: null });
    });

    it("the cascade of a cancel is queued under the cancel job its supervisor holds; once another claimed the job again, a paused one's is refused", async () => {
      let now = Date.parse('2026-01-01T00:00:00.000Z');
      const admin = h().open({ clock: () => now });
      const paused = h().open({ clock: () => now, writer: 'sup-a' });
      const heir = h().open({ clock: () => now, writer: 'sup-b' });
      const parent = await admin.createRun(newRun());
      const child = await admin.createRun(newRun());
      await admin.enqueueJob('cancel_run', parent.id);
      // Claims jobs (the runs' start_run jobs come first) until the parent's cancel.
      const claimCancel = async (ownerId: string): Promise<Job> => {
        for (let job = await admin.claimJob(ownerId, 5_000); job; job = await admin.claimJob(ownerId, 5_000)) {
          if (job.kind === 'cancel_run' && job.run_id === parent.id) return job;
        }
        throw new Error(`${ownerId} claimed no cancel of the parent`);
      };
      const cancels = async () => (await admin.listRunJobs(child.id)).filter((j) => j.kind === 'cancel_run').length;
      const job = await claimCancel('sup-a');
      await paused.enqueueJob('cancel_run', child.id, { cascadeFrom: parent.id }, { underJob: job.id });
      expect(await cancels()).toBe(1);

      now += 10_000; // sup-a paused past the job's lease: sup-b claims it again
      expect((await claimCancel('sup-b')).id).toBe(job.id);
      const refused = await paused.enqueueJob('cancel_run', child.id, { cascadeFrom: parent.id }, { underJob: job.id }).catch((err: unknown) => err);
      expect(isFenced(refused)).toBe(true);
      expect((refused as Error).message).toContain(`Job ${job.id} is held by supervisor sup-b, not by sup-a`);
      expect(await cancels()).toBe(1);

      await heir.enqueueJob('cancel_run', child.id, { cascadeFrom: parent.id }, { underJob: job.id });
      expect(await cancels()).toBe(2);
      // Once carried out, the job is nobody's: nothing more is queued under it by a supervisor; a store for no supervisor queues as before.
      await admin.finishJob(job.id, 'sup-b', 'cancelled');
      expect(isFenced(await heir.enqueueJob('cancel_run', child.id, {}, { underJob: job.id }).catch((err: unknown) => err))).toBe(true);
      await admin.enqueueJob('cancel_run', child.id, {}, { underJob: job.id });
      expect(await cancels()).toBe(3);
    });

    it('a run nobody holds (let go, or never started) takes no events from a supervisor; a store for no supervisor writes as before', async () => {
      const admin = h().open();
      const store = h().open({ writer: 'sup-a' });
      const run = await admin.createRun(newRun());
      expect(isFenced(await store.appendEvents([newEvent(run, 'x')]).catch((err: unknown) => err))).toBe(true);
      await acquire(admin, run.id, 'sup-a');
      await admin.releaseRuns('sup-a', [run.id]);
      expect(isFenced(await store.appendEvents([newEvent(run, 'y')]).catch((err: unknown) => err))).toBe(true);
      expect(await admin.appendEvents([newEvent(run, 'z')])).toHaveLength(1);
      expect((await admin.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['z']);
    });
  });
}
