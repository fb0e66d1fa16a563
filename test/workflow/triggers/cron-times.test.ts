import { describe, expect, it } from 'vitest';
import { cronProblem, dueTimesBetween, nextFireTimes } from '../../../src/workflow/triggers/cron-times.js';

/** The due times of a 02:30 schedule over the three days around a daylight-saving change. */
const around = (timezone: string, cron: string, from: string, to: string) =>
  dueTimesBetween(cron, timezone, Date.parse(from), Date.parse(to), 100).map((d) => d.toISOString());

describe('cron due times on daylight-saving days (what docs/schedules.md promises)', () => {
  it('Europe/Berlin: 02:30 runs at 03:00 when the clocks skip it, and once (summer time) when they pass it twice', () => {
    expect(around('Europe/Berlin', '30 2 * * *', '2026-03-28T00:00:00Z', '2026-03-30T23:00:00Z')).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
    expect(around('Europe/Berlin', '30 2 * * *', '2026-10-24T00:00:00Z', '2026-10-26T23:00:00Z')).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST) only; 01:30Z (02:30 CET) does not fire
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('America/New_York: 02:30 runs at 03:00 on the spring day; on the fall day 02:30 is once and 01:30 (passed twice) runs once', () => {
    expect(around('America/New_York', '30 2 * * *', '2026-03-07T00:00:00Z', '2026-03-09T23:00:00Z')).toEqual([
      '2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z',
    ]);
    expect(around('America/New_York', '30 2 * * *', '2026-10-31T00:00:00Z', '2026-11-02T23:00:00Z')).toEqual([
      '2026-10-31T06:30:00.000Z', '2026-11-01T07:30:00.000Z', '2026-11-02T07:30:00.000Z',
    ]);
    expect(around('America/New_York', '30 1 * * *', '2026-10-31T00:00:00Z', '2026-11-02T23:00:00Z')).toEqual([
      '2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('Australia/Sydney (southern hemisphere): 02:30 once on the April fall-back day, at 03:00 on the October spring day', () => {
    expect(around('Australia/Sydney', '30 2 * * *', '2026-04-03T00:00:00Z', '2026-04-05T23:00:00Z')).toEqual([
      '2026-04-03T15:30:00.000Z', '2026-04-04T15:30:00.000Z', '2026-04-05T16:30:00.000Z',
    ]);
    expect(around('Australia/Sydney', '30 2 * * *', '2026-10-02T00:00:00Z', '2026-10-04T23:00:00Z')).toEqual([
      '2026-10-02T16:30:00.000Z', '2026-10-03T16:00:00.000Z', '2026-10-04T15:30:00.000Z',
    ]);
  });

  it('an interval schedule keeps its interval: every 30 minutes runs both 02:30s of a fall-back night', () => {
    expect(around('Europe/Berlin', '*/30 * * * *', '2026-10-25T00:00:00Z', '2026-10-25T02:00:00Z')).toEqual([
      '2026-10-25T00:30:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-25T02:00:00.000Z',
    ]);
  });
});

describe('cron expressions and time zones', () => {
  it('names what is wrong with an expression or a zone', () => {
    expect(cronProblem('0 3 * * *', 'UTC')).toBeUndefined();
    expect(cronProblem('*/5 * * * * *', 'Europe/Berlin')).toBeUndefined();
    expect(cronProblem('61 * * * *', 'UTC')).toMatch(/^cron '61 \* \* \* \*' is not a cron expression .*minute.*five fields/);
    expect(cronProblem('every night', 'UTC')).toMatch(/^cron 'every night' is not a cron expression/);
    expect(cronProblem('0 3 * * *', 'Mars/Olympus')).toMatch(/^timezone 'Mars\/Olympus' is not an IANA time zone name/);
  });

  it('lists the next fire times, and keeps only the newest due times of a long downtime', () => {
    expect(nextFireTimes('0 3 * * *', 'UTC', Date.parse('2026-01-01T04:00:00Z'), 2).map((d) => d.toISOString())).toEqual([
      '2026-01-02T03:00:00.000Z', '2026-01-03T03:00:00.000Z',
    ]);
    const due = dueTimesBetween('* * * * * *', 'UTC', Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T01:00:00Z'), 5);
    expect(due.map((d) => d.toISOString())).toEqual(['56', '57', '58', '59', '00'].map((s, i) => (i < 4 ? `2026-01-01T00:59:${s}.000Z` : '2026-01-01T01:00:00.000Z')));
  });
});
