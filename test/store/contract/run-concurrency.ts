import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunConcurrency } from '../../../src/shared/run-concurrency.js';
import type { Run } from '../../../src/store/schemas/run.js';
import type { NewRun, Store } from '../../../src/store/store.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** A run of workflow `demo` under a concurrency policy. */
function keyed(key: string, limit: number, onOverlap: RunConcurrency['on_overlap'] = 'queue', overrides: Partial<NewRun> = {}): NewRun {
  return newRun({ metadata: { concurrency: { key, limit, on_overlap: onOverlap } }, ...overrides });
}

const jobKinds = async (store: Store, runId: string) => (await store.listRunJobs(runId)).map((job) => job.kind);

async function start(store: Store, runId: string): Promise<void> {
  await store.acquireRun({ runId, ownerId: 'sup', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
}

async function end(store: Store, runId: string, status: 'completed' | 'cancelled' = 'completed'): Promise<void> {
  await store.transitionRun({ runId, ownerId: 'sup', status, release: true, events: [] });
}

/** A resume's acquire of an ended run, with its `workflow_resumed`. */
function resume(run: Pick<Run, 'id' | 'conversation_id'>) {
  return {
    runId: run.id, ownerId: 'sup', leaseMs: 60_000, status: 'running' as const, resume: true,
    events: [{ run_id: run.id, conversation_id: run.conversation_id, event_type: 'workflow_resumed', step_name: null, data: { resumedFrom: 'cancelled' } }],
  };
}

/**
 * A workflow's concurrency policy (store/rules/run-concurrency.ts): decided in the transaction
 * that creates the run, and moved on in the transaction that ends one, on every backend.
 */
export function describeRunConcurrencyContract(backend: StoreBackend): void {
  describe('run concurrency', () => {
    const h = useHarness(backend);

    it('starts racing from several connections never give more runs a place than the limit; the rest wait in order', async () => {
      const stores = [h().open(), h().open(), h().open(), h().open()];
      const runs = Array.from({ length: 8 }, () => keyed('pr-7', 2));
      const created = await Promise.all(runs.map((run, i) => stores[i % stores.length]!.createRun(run)));
      const store = stores[0]!;
      const placed = [];
      const waiting = [];
      for (const run of created) {
        const kinds = await jobKinds(store, run.id);
        const concurrency = (await store.getRun(run.id))!.metadata.concurrency!;
        if (kinds.includes('start_run')) placed.push(run.id);
        else waiting.push(concurrency);
        expect(run.status).toBe('pending');
      }
      expect(placed).toHaveLength(2);
      expect(waiting.map((c) => c.position).sort()).toEqual([1, 2, 3, 4, 5, 6]);
      for (const c of waiting) expect([...c.waiting_for!].sort()).toEqual([...placed].sort());
    });

    it('the transaction that ends a run of the key queues the oldest waiting run\'s start_run; a new connection finds it', async () => {
      const store = h().open();
      const first = await store.createRun(keyed('nightly', 1));
      const second = await store.createRun(keyed('nightly', 1));
      const third = await store.createRun(keyed('nightly', 1));
      expect(await jobKinds(store, second.id)).toEqual([]);
      expect(second.metadata.concurrency).toMatchObject({ key: 'nightly', waiting_for: [first.id], position: 1 });
      expect(third.metadata.concurrency).toMatchObject({ waiting_for: [first.id], position: 2 });
      // A paused run holds its place (a gate may wait for days).
      await start(store, first.id);
      await store.transitionRun({ runId: first.id, ownerId: 'sup', status: 'paused', events: [] });
      expect(await jobKinds(store, second.id)).toEqual([]);
      await store.acquireRun({ runId: first.id, ownerId: 'sup', leaseMs: 60_000, fromStatuses: ['paused'], status: 'running', events: [] });
      await end(store, first.id);

      const later = h().open();
      expect(await jobKinds(later, second.id)).toEqual(['start_run']);
      const moved = (await later.getRun(second.id))!.metadata.concurrency!;
      expect(moved).toEqual({ key: 'nightly', limit: 1, on_overlap: 'queue' });
      expect((await later.getRun(third.id))!.metadata.concurrency).toMatchObject({ waiting_for: [second.id], position: 1 });
      expect(await jobKinds(later, third.id)).toEqual([]);
      // A waiting run that is cancelled gives up its turn without holding anything up.
      await later.acquireRun({ runId: third.id, ownerId: 'sup', leaseMs: 60_000, fromStatuses: ['pending'], status: 'cancelled', events: [] });
      expect((await later.getRun(third.id))!.metadata.concurrency).toEqual({ key: 'nightly', limit: 1, on_overlap: 'queue' });
      const fourth = await later.createRun(keyed('nightly', 1));
      await start(later, second.id);
      await end(later, second.id, 'cancelled');
      expect(await jobKinds(later, fourth.id)).toEqual(['start_run']);
    });

    it('refuse: nothing is created, and the error names the runs holding the places; a schedule records the due time skipped, a delivery is not admitted', async () => {
      const store = h().open();
      const holder = await store.createRun(keyed('one', 1, 'refuse'));
      const refused = keyed('one', 1, 'refuse');
      await expect(store.createRun(refused)).rejects.toMatchObject({ code: 'CONCURRENCY_LIMIT_REACHED', message: expect.stringContaining(holder.id) });
      expect(await store.getRun(refused.id)).toBeUndefined();

      const schedule = await store.createSchedule({
        id: randomUUID(), name: 'nightly', workflowName: 'demo', codebaseId: null, inputs: {}, cron: '0 3 * * *', timezone: 'UTC',
        overlap: 'allow_all', catchUpMs: 600_000,
      });
      const dueAt = new Date(Date.now() + 60_000).toISOString();
      const fire = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt, now: dueAt, run: keyed('one', 1, 'refuse') });
      expect(fire).toMatchObject({ decided: true, fire: { outcome: 'skipped', run_id: null, reason: expect.stringContaining(holder.id) } });
      expect(fire).not.toHaveProperty('run');

      const hook = await store.createHook({
        id: randomUUID(), name: 'ci', workflowName: 'demo', codebaseId: null, signature: 'github', inputs: {}, sealedSecret: 'sealed',
      });
      await expect(store.admitHookDelivery({ hookId: hook.id, deliveryId: 'd-1', run: keyed('one', 1, 'refuse') })).rejects.toMatchObject({
        code: 'CONCURRENCY_LIMIT_REACHED',
      });
      expect(await store.getHookDelivery(hook.id, 'd-1')).toBeUndefined();
      // Once the place is free, the same delivery is admitted.
      await start(store, holder.id);
      await end(store, holder.id);
      expect(await store.admitHookDelivery({ hookId: hook.id, deliveryId: 'd-1', run: keyed('one', 1, 'refuse') })).toMatchObject({ admitted: true });
    });

    it('refuse: a buffered due time that comes to start while every place is taken is recorded skipped, with the reason', async () => {
      const store = h().open();
      const holder = await store.createRun(keyed('one', 1, 'refuse'));
      const schedule = await store.createSchedule({
        id: randomUUID(), name: 'hourly', workflowName: 'demo', codebaseId: null, inputs: {}, cron: '0 * * * *', timezone: 'UTC',
        overlap: 'buffer_one', catchUpMs: 600_000,
      });
      const due = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
      const first = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: due(1), now: due(1), run: keyed('other', 1, 'refuse') });
      expect(first).toMatchObject({ decided: true, fire: { outcome: 'started' } });
      const second = due(2);
      expect(await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: second, now: second, run: keyed('one', 1, 'refuse') })).toMatchObject({
        decided: true, fire: { outcome: 'buffered' },
      });
      const firstRun = (first as { run: { id: string } }).run.id;
      await start(store, firstRun);
      await end(store, firstRun);
      expect(await store.listSchedulesReadyToStartBuffered()).toEqual([schedule.id]);
      expect(await store.startBufferedFire(schedule.id, keyed('one', 1, 'refuse'))).toBeUndefined();
      const [buffered] = await store.listScheduleFires(schedule.id, 1);
      expect(buffered).toMatchObject({ due_at: second, outcome: 'skipped', run_id: null });
      expect(buffered!.reason).toContain(holder.id);
      expect(await store.listSchedulesReadyToStartBuffered()).toEqual([]);
    });

    it('cancel_other: the oldest run holding a place gets a cancel, the new run starts once it has ended', async () => {
      const store = h().open();
      const old = await store.createRun(keyed('pr', 1, 'cancel_other'));
      await start(store, old.id);
      const fresh = await store.createRun(keyed('pr', 1, 'cancel_other'));
      expect(await jobKinds(store, old.id)).toEqual(['start_run', 'cancel_run']);
      expect(await jobKinds(store, fresh.id)).toEqual([]);
      expect(fresh.metadata.concurrency).toMatchObject({ waiting_for: [old.id] });
      await end(store, old.id, 'cancelled');
      expect(await jobKinds(store, fresh.id)).toEqual(['start_run']);
    });

    it('keys are compared as whole strings: quotes, % and _ and unicode are only values', async () => {
      const store = h().open();
      const keys = [`pr-'1"; DROP TABLE workflow_runs; --`, 'pr-%', 'pr-_', 'pr-1', 'pr-ü 🚀', 'PR-1'];
      for (const key of keys) {
        const run = await store.createRun(keyed(key, 1));
        expect(await jobKinds(store, run.id), key).toEqual(['start_run']);
        expect((await store.getRun(run.id))!.metadata.concurrency!.key).toBe(key);
      }
      const again = await store.createRun(keyed('pr-%', 1));
      expect(again.metadata.concurrency!.waiting_for).toHaveLength(1);
      // Another workflow's runs with the same key do not share its places.
      const other = await store.createRun(keyed('pr-%', 1, 'queue', { workflowName: 'other' }));
      expect(await jobKinds(store, other.id)).toEqual(['start_run']);
    });
    it('a resume of an ended run is admitted in its acquire: it waits pending and nobody\'s, its line reread, and starts when the holder ends', async () => {
      const store = h().open();
      const failed = await store.createRun(keyed('r', 1));
      await start(store, failed.id);
      await end(store, failed.id, 'cancelled');
      const holder = await store.createRun(keyed('r', 1));
      await start(store, holder.id);
      const resumed = await store.acquireRun({ ...resume(failed), fromStatuses: ['cancelled'] });
      expect(resumed).toMatchObject({ status: 'pending', owner_id: null, lease_expires_at: null, completed_at: null });
      expect(resumed!.metadata.concurrency).toEqual({ key: 'r', limit: 1, on_overlap: 'queue', waiting_for: [holder.id], position: 1 });
      expect((await store.listRunEvents(failed.id)).map((e) => e.event_type)).toEqual(['workflow_resumed']);
      await end(store, holder.id);
      const later = h().open();
      expect(await jobKinds(later, failed.id)).toEqual(['start_run', 'start_run']);
      expect((await later.getRun(failed.id))!.metadata.concurrency).toEqual({ key: 'r', limit: 1, on_overlap: 'queue' });
    });

    it('refuse: a resume with no place free throws in its acquire and writes nothing; the request to resume is refused', async () => {
      const store = h().open();
      const failed = await store.createRun(keyed('r', 1, 'refuse'));
      await start(store, failed.id);
      await end(store, failed.id, 'cancelled');
      const holder = await store.createRun(keyed('r', 1, 'refuse'));
      const before = await store.getRun(failed.id);
      await expect(store.acquireRun({ ...resume(failed), fromStatuses: ['cancelled'] })).rejects.toMatchObject({
        code: 'CONCURRENCY_LIMIT_REACHED', message: expect.stringContaining(holder.id),
      });
      expect(await store.getRun(failed.id)).toEqual(before);
      expect(await store.listRunEvents(failed.id)).toEqual([]);
      const asked = await store.requestRunContinuation({ runId: failed.id, kind: 'resume_run', payload: {}, fromStatuses: ['cancelled'] });
      expect(asked).toMatchObject({ queued: false, refused: { holders: [holder.id] } });
      expect(await jobKinds(store, failed.id)).toEqual(['start_run']);
    });
  });
}
