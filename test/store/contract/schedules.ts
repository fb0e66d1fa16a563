import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewSchedule, Store } from '../../../src/store/store.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

const MINUTE = 60_000;

export function newSchedule(overrides: Partial<NewSchedule> = {}): NewSchedule {
  return {
    id: randomUUID(), name: `nightly-${randomUUID().slice(0, 8)}`, workflowName: 'demo', codebaseId: null, inputs: { depth: '2' },
    cron: '0 3 * * *', timezone: 'Europe/Berlin', overlap: 'skip', catchUpMs: 10 * MINUTE, ...overrides,
  };
}

/** Due times after the schedule's creation (its cursor starts there). */
const at = (minutesFromNow: number) => new Date(Date.now() + minutesFromNow * MINUTE).toISOString();

async function endRun(store: Store, runId: string): Promise<void> {
  await store.acquireRun({ runId, ownerId: 'sup', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
  await store.transitionRun({ runId, ownerId: 'sup', status: 'completed', release: true, events: [] });
}

/** ScheduleStore: schedules, and each due time decided exactly once with the run it starts. */
export function describeScheduleContract(backend: StoreBackend): void {
  describe('schedules', () => {
    const h = useHarness(backend);

    it('creates, finds by id or name, lists, pauses, resumes and deletes schedules; names are unique', async () => {
      const store = h().open();
      const made = await store.createSchedule(newSchedule({ name: 'b-nightly' }));
      await store.createSchedule(newSchedule({ name: 'a-hourly', cron: '0 * * * *', overlap: 'buffer_all' }));
      expect(made).toMatchObject({ name: 'b-nightly', inputs: { depth: '2' }, overlap: 'skip', paused: false, origin: 'api', codebase_id: null });
      expect(made.cursor_at).toBe(made.created_at);
      await expect(store.createSchedule(newSchedule({ name: 'b-nightly' }))).rejects.toMatchObject({ code: 'SCHEDULE_EXISTS' });
      expect((await store.getSchedule('b-nightly'))?.id).toBe(made.id);
      expect((await store.getSchedule(made.id))?.name).toBe('b-nightly');
      expect((await store.listSchedules()).map((s) => s.name)).toEqual(['a-hourly', 'b-nightly']);
      expect((await store.setSchedulePaused(made.id, true))?.paused).toBe(true);
      const resumed = await store.setSchedulePaused(made.id, false);
      expect(resumed?.paused).toBe(false);
      expect(resumed!.cursor_at >= made.cursor_at).toBe(true);
      expect(await store.setSchedulePaused(randomUUID(), true)).toBeUndefined();
      expect(await store.deleteSchedule(made.id)).toBe(true);
      expect(await store.deleteSchedule(made.id)).toBe(false);
      expect(await h().open().getSchedule('b-nightly')).toBeUndefined();
    });

    it('decides a due time once: the run and its fire together, a second try answers the first decision', async () => {
      const store = h().open();
      const schedule = await store.createSchedule(newSchedule());
      const dueAt = at(1);
      const plain = newRun();
      // With its `workflow_queued`, which announces the run on the live stream the moment it exists.
      const run = { ...plain, events: [{ run_id: plain.id, conversation_id: plain.conversationId, event_type: 'workflow_queued', step_name: null, data: { workflowName: plain.workflowName } }] };
      const first = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt, now: dueAt, run });
      expect(first).toMatchObject({ decided: true, fire: { outcome: 'started', run_id: run.id, manual: false }, run: { id: run.id, status: 'pending' } });
      expect((await store.listRunJobs(run.id)).map((j) => j.kind)).toEqual(['start_run']);
      expect((await store.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['workflow_queued']);
      const again = await h().open().admitScheduleFire({ scheduleId: schedule.id, dueAt, now: dueAt, run: newRun() });
      expect(again).toMatchObject({ decided: false, why: 'decided_already', fire: { run_id: run.id } });
      expect((await store.getSchedule(schedule.id))?.cursor_at).toBe(dueAt);
      expect((await store.listScheduleFires(schedule.id, 10)).map((f) => f.due_at)).toEqual([dueAt]);
    });

    it('admits one run when several connections race on the same due time', async () => {
      const schedule = await h().open().createSchedule(newSchedule({ overlap: 'allow_all' }));
      const dueAt = at(1);
      const stores = [h().open(), h().open(), h().open(), h().open()];
      const answers = await Promise.all(stores.map((s) => s.admitScheduleFire({ scheduleId: schedule.id, dueAt, now: dueAt, run: newRun({ workflowName: 'raced' }) })));
      expect(answers.filter((a) => a.decided)).toHaveLength(1);
      expect(await stores[0]!.listRuns({ workflowName: 'raced', limit: 10 })).toHaveLength(1);
    });

    it('records a due time older than the catch-up window as missed, and never looks behind the cursor', async () => {
      const store = h().open();
      const schedule = await store.createSchedule(newSchedule({ catchUpMs: MINUTE }));
      const [t1, t2] = [at(1), at(2)];
      const late = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: t1, now: at(3), run: newRun() });
      expect(late).toMatchObject({ decided: true, fire: { outcome: 'missed', run_id: null }, cancelled: [] });
      expect(late.decided && late.fire.reason).toMatch(/catch-up window/);
      expect(await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: t2, now: t2, failure: "workflow 'demo' is gone" }))
        .toMatchObject({ decided: true, fire: { outcome: 'failed', reason: "workflow 'demo' is gone" } });
      // A clock that jumped back does not bring t1 round again, nor a time before the schedule existed.
      expect(await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: at(1.5), now: at(1.5), run: newRun() }))
        .toMatchObject({ decided: false, why: 'before_cursor' });
      expect(await store.admitScheduleFire({ scheduleId: randomUUID(), dueAt: t2, now: t2, run: newRun() })).toMatchObject({ decided: false, why: 'not_found' });
    });

    it('skips a due time while its run is open (skip), and leaves a paused schedule undecided unless run now', async () => {
      const store = h().open();
      const schedule = await store.createSchedule(newSchedule());
      const first = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: at(1), now: at(1), run: newRun() });
      const second = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: at(2), now: at(2), run: newRun() });
      expect(second).toMatchObject({ decided: true, fire: { outcome: 'skipped', run_id: null } });
      await endRun(store, first.decided ? first.fire.run_id! : '');
      expect(await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: at(3), now: at(3), run: newRun() })).toMatchObject({ fire: { outcome: 'started' } });
      await store.setSchedulePaused(schedule.id, true);
      expect(await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: at(4), now: at(4), run: newRun() })).toMatchObject({ decided: false, why: 'paused' });
      const manual = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: new Date().toISOString(), now: new Date().toISOString(), manual: true, run: newRun() });
      // Run now obeys the overlap policy too: the run of the third due time is still open.
      expect(manual).toMatchObject({ decided: true, fire: { outcome: 'skipped', manual: true } });
    });

    it('buffers while a run is open and starts the oldest buffered fire once it ended (buffer_all)', async () => {
      const store = h().open();
      const schedule = await store.createSchedule(newSchedule({ overlap: 'buffer_all' }));
      const [t1, t2, t3] = [at(1), at(2), at(3)];
      const first = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: t1, now: t1, run: newRun() });
      for (const t of [t2, t3]) {
        expect(await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: t, now: t, run: newRun() })).toMatchObject({ fire: { outcome: 'buffered' } });
      }
      expect(await store.listSchedulesReadyToStartBuffered()).toEqual([]);
      expect(await store.startBufferedFire(schedule.id, newRun())).toBeUndefined();
      await endRun(store, first.decided ? first.fire.run_id! : '');
      expect(await store.listSchedulesReadyToStartBuffered()).toEqual([schedule.id]);
      const started = await store.startBufferedFire(schedule.id, newRun());
      expect(started?.fire).toMatchObject({ due_at: t2, outcome: 'started', run_id: started!.run.id });
      // The started one is open again: the third waits.
      expect(await store.startBufferedFire(schedule.id, newRun())).toBeUndefined();
      expect((await store.listScheduleFires(schedule.id, 10)).map((f) => f.outcome)).toEqual(['buffered', 'started', 'started']);
    });

    it('keeps one buffered fire at most (buffer_one) and cancels the open run for the new one (cancel_other)', async () => {
      const store = h().open();
      const one = await store.createSchedule(newSchedule({ overlap: 'buffer_one' }));
      await store.admitScheduleFire({ scheduleId: one.id, dueAt: at(1), now: at(1), run: newRun() });
      const outcomes = [];
      for (const m of [2, 3, 4]) {
        const answer = await store.admitScheduleFire({ scheduleId: one.id, dueAt: at(m), now: at(m), run: newRun() });
        outcomes.push(answer.decided ? answer.fire.outcome : answer.why);
      }
      expect(outcomes).toEqual(['buffered', 'skipped', 'skipped']);

      const cancelling = await store.createSchedule(newSchedule({ overlap: 'cancel_other' }));
      const open = await store.admitScheduleFire({ scheduleId: cancelling.id, dueAt: at(1), now: at(1), run: newRun() });
      const openId = open.decided ? open.fire.run_id! : '';
      const next = await store.admitScheduleFire({ scheduleId: cancelling.id, dueAt: at(2), now: at(2), run: newRun() });
      expect(next).toMatchObject({ decided: true, fire: { outcome: 'started' }, cancelled: [openId] });
      expect((await store.listRunJobs(openId)).map((j) => j.kind)).toEqual(['start_run', 'cancel_run']);
    });

    it('syncs the schedules a scope declares: created, updated with their pause kept, and removed', async () => {
      const store = h().open();
      const declared = (cron: string) => [newSchedule({ name: 'nightly#0', cron }), newSchedule({ name: 'nightly#1' })];
      expect(await store.syncDeclaredSchedules('global', declared('0 3 * * *'))).toEqual({ created: ['nightly#0', 'nightly#1'], updated: [], removed: [] });
      const first = (await store.getSchedule('nightly#0'))!;
      expect(first.origin).toBe('workflow');
      await store.setSchedulePaused(first.id, true);
      expect(await store.syncDeclaredSchedules('global', [declared('0 4 * * *')[0]!])).toEqual({ created: [], updated: ['nightly#0'], removed: ['nightly#1'] });
      expect(await store.getSchedule('nightly#0')).toMatchObject({ id: first.id, cron: '0 4 * * *', paused: true });
      // A scope whose files do not all load keeps what it declared before.
      expect(await store.syncDeclaredSchedules('global', [], { keepUnlisted: true })).toEqual({ created: [], updated: [], removed: [] });
      // Another scope's declarations are its own.
      await store.syncDeclaredSchedules('codebase:x', []);
      expect((await store.listSchedules()).map((s) => s.name)).toEqual(['nightly#0']);
    });
  });
}
