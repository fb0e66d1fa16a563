import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { fireLoop, handClock, scheduleHome, tickSchedule } from './fire-loop-clock.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const MINUTE = 60_000;

/** What a supervisor does to a run: take it, then end it. */
async function endRun(store: Store, runId: string): Promise<void> {
  await store.acquireRun({ runId, ownerId: 'sup', leaseMs: MINUTE, fromStatuses: ['pending'], status: 'running', events: [] });
  await store.transitionRun({ runId, ownerId: 'sup', status: 'completed', release: true, events: [] });
}

describe('overlap policies through the fire loop', () => {
  it('buffer_all: due times wait while the run is open and start one after another as each run ends; a pause holds them', async () => {
    const clock = handClock('2026-05-01T10:00:30Z');
    const store = await scheduleHome(home, clock.now);
    const schedule = await store.createSchedule(tickSchedule({ overlap: 'buffer_all' }));
    const loop = fireLoop(home, store, clock.now);
    for (let m = 0; m < 3; m++) {
      clock.advance(MINUTE);
      await loop.pass();
    }
    const outcomes = async () => (await store.listScheduleFires(schedule.id, 10)).reverse().map((f) => f.outcome);
    expect(await outcomes()).toEqual(['started', 'buffered', 'buffered']);
    const [first] = await store.listRuns({ workflowName: 'tick', limit: 10 });
    await endRun(store, first!.id);
    await store.setSchedulePaused(schedule.id, true);
    await loop.pass();
    expect(await outcomes()).toEqual(['started', 'buffered', 'buffered']);
    await store.setSchedulePaused(schedule.id, false);
    await loop.pass();
    expect(await outcomes()).toEqual(['started', 'started', 'buffered']);
    const second = (await store.listRuns({ workflowName: 'tick', status: 'pending', limit: 10 }))[0]!;
    expect((second.metadata.schedule as { due_at: string }).due_at).toBe('2026-05-01T10:02:00.000Z');
    await endRun(store, second.id);
    await loop.pass();
    expect(await outcomes()).toEqual(['started', 'started', 'started']);
  });

  it('cancel_other: the open run gets a cancel_run job (the normal cancel path) and the new run starts', async () => {
    const clock = handClock('2026-05-01T10:00:30Z');
    const store = await scheduleHome(home, clock.now);
    await store.createSchedule(tickSchedule({ overlap: 'cancel_other' }));
    const loop = fireLoop(home, store, clock.now);
    clock.advance(MINUTE);
    await loop.pass();
    const [open] = await store.listRuns({ workflowName: 'tick', limit: 10 });
    clock.advance(MINUTE);
    await loop.pass();
    expect((await store.listRunJobs(open!.id)).map((j) => j.kind)).toEqual(['start_run', 'cancel_run']);
    expect(await store.listRuns({ workflowName: 'tick', limit: 10 })).toHaveLength(2);
  });
});
