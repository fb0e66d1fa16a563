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

/**
 * A 02:30 schedule driven through the fire loop by an injected clock, in 30-minute steps across
 * a daylight-saving change: each day it runs exactly once, at the instant docs/schedules.md says.
 */
const days = [
  { zone: 'Europe/Berlin', kind: 'spring forward', from: '2026-03-27T12:00:00Z', runs: ['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z'] },
  { zone: 'Europe/Berlin', kind: 'fall back', from: '2026-10-23T12:00:00Z', runs: ['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'] },
  { zone: 'America/New_York', kind: 'spring forward', from: '2026-03-06T12:00:00Z', runs: ['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z'] },
  { zone: 'America/New_York', kind: 'fall back', from: '2026-10-30T12:00:00Z', runs: ['2026-10-31T06:30:00.000Z', '2026-11-01T07:30:00.000Z', '2026-11-02T07:30:00.000Z'] },
  { zone: 'Australia/Sydney', kind: 'fall back', from: '2026-04-03T00:00:00Z', runs: ['2026-04-03T15:30:00.000Z', '2026-04-04T15:30:00.000Z', '2026-04-05T16:30:00.000Z'] },
  { zone: 'Australia/Sydney', kind: 'spring forward', from: '2026-10-02T00:00:00Z', runs: ['2026-10-02T16:30:00.000Z', '2026-10-03T16:00:00.000Z', '2026-10-04T15:30:00.000Z'] },
];

describe('a 02:30 schedule on daylight-saving days', () => {
  for (const day of days) {
    it(`${day.zone}, ${day.kind}: one run a day, at the documented instant`, async () => {
      const clock = handClock(day.from);
      const store = await scheduleHome(home, clock.now);
      const schedule = await store.createSchedule(tickSchedule({ cron: '30 2 * * *', timezone: day.zone, catchUpMs: 60 * 60_000 }));
      const loop = fireLoop(home, store, clock.now);
      for (let step = 0; step < 3 * 48 + 8; step++) {
        clock.advance(30 * 60_000);
        await loop.pass();
      }
      const fires = (await store.listScheduleFires(schedule.id, 10)).reverse();
      expect(fires.map((f) => [f.due_at, f.outcome])).toEqual(day.runs.map((at) => [at, 'started']));
      const runs = await store.listRuns({ workflowName: 'tick', limit: 10 });
      expect(runs).toHaveLength(3);
    });
  }
});
