import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe('the fire loop after downtime, with two loops, and with a clock that jumps', () => {
  it('after a restart runs each due time inside the catch-up window once and records the older ones missed', async () => {
    const clock = handClock('2026-05-01T10:00:30Z');
    const store = await scheduleHome(home, clock.now);
    const schedule = await store.createSchedule(tickSchedule({ catchUpMs: 3 * MINUTE }));
    await fireLoop(home, store, clock.now).pass();
    // Down for ten minutes; then a new process (a new store connection, a new loop) comes up.
    clock.advance(10 * MINUTE);
    const restarted = home.openStore({ clock: clock.now });
    const loop = fireLoop(home, restarted, clock.now);
    await loop.pass();
    await loop.pass();
    const fires = (await restarted.listScheduleFires(schedule.id, 100)).reverse();
    expect(fires.map((f) => [f.due_at.slice(11, 16), f.outcome])).toEqual([
      ...['10:01', '10:02', '10:03', '10:04', '10:05', '10:06', '10:07'].map((t) => [t, 'missed']),
      ...['10:08', '10:09', '10:10'].map((t) => [t, 'started']),
    ]);
    expect(await restarted.listRuns({ workflowName: 'tick', limit: 100 })).toHaveLength(3);
  });

  it('two loops on two connections racing on the same due times start one run each', async () => {
    const clock = handClock('2026-05-01T10:00:30Z');
    const store = await scheduleHome(home, clock.now);
    const schedule = await store.createSchedule(tickSchedule());
    const other = home.openStore({ clock: clock.now });
    const loops = [fireLoop(home, store, clock.now), fireLoop(home, other, clock.now)];
    for (let minute = 0; minute < 5; minute++) {
      clock.advance(MINUTE);
      await Promise.all(loops.map((loop) => loop.pass()));
    }
    const fires = await store.listScheduleFires(schedule.id, 100);
    expect(fires).toHaveLength(5);
    expect(new Set(fires.map((f) => f.run_id)).size).toBe(5);
    expect(await store.listRuns({ workflowName: 'tick', limit: 100 })).toHaveLength(5);
  });

  it('neither repeats nor skips a due time when the clock jumps back and forward again', async () => {
    const clock = handClock('2026-05-01T10:00:30Z');
    const store = await scheduleHome(home, clock.now);
    const schedule = await store.createSchedule(tickSchedule());
    const loop = fireLoop(home, store, clock.now);
    clock.advance(2 * MINUTE);
    await loop.pass();
    clock.advance(-60 * MINUTE);
    await loop.pass();
    clock.advance(62 * MINUTE);
    await loop.pass();
    clock.advance(MINUTE);
    await loop.pass();
    const fires = (await store.listScheduleFires(schedule.id, 100)).reverse();
    // Back to 09:02:30 (nothing), on to 10:04:30 and 10:05:30: each minute once.
    expect(fires.map((f) => [f.due_at.slice(11, 16), f.outcome])).toEqual(['10:01', '10:02', '10:03', '10:04', '10:05'].map((t) => [t, 'started']));
  });

  it('records a fire failed, naming why, when its workflow is gone', async () => {
    const clock = handClock('2026-05-01T10:00:30Z');
    const store = await scheduleHome(home, clock.now);
    const schedule = await store.createSchedule(tickSchedule({ workflowName: 'vanished' }));
    clock.advance(MINUTE);
    await fireLoop(home, store, clock.now).pass();
    const [fire] = await store.listScheduleFires(schedule.id, 1);
    expect(fire).toMatchObject({ outcome: 'failed', run_id: null });
    expect(fire?.reason).toMatch(/vanished/);
  });
});
