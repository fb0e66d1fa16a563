import { describe, expect, it } from 'vitest';
import { ClaudeStreamState } from '../../../src/worker/providers/claude/stream.js';
import { codexFailure } from '../../../src/worker/providers/codex/failure.js';
import { CodexStreamState } from '../../../src/worker/providers/codex/stream.js';
import { usageLimitOf } from '../../../src/worker/providers/common/usage-limit.js';
import { instantOfWallTime } from '../../../src/worker/providers/common/zoned-time.js';

/**
 * Reset messages as the vendors print them, each read to the instant it names. `now` is Friday
 * 2026-11-27 16:00 UTC; a message with no zone is read in the zone passed as the CLI's local one.
 */
const now = Date.parse('2026-11-27T16:00:00Z');
const at = (iso: string) => new Date(iso).toISOString();

const messages: { from: string; text: string; zone?: string; resetAt: string }[] = [
  { from: 'Claude Code, older versions', text: 'Claude AI usage limit reached|1795802400', resetAt: at('2026-11-27T18:00:00Z') },
  // What Claude Code 2.1 prints (its own template "You've hit your <limit> · resets <time> (<zone>)").
  { from: 'Claude Code 2.1, session limit', text: "You've hit your session limit · resets 11:30pm (Asia/Kolkata)", resetAt: at('2026-11-27T18:00:00Z') },
  { from: 'Claude Code 2.1, 5-hour limit, progress saved', text: "You've hit your 5-hour limit · resets 6pm (UTC) · progress saved", resetAt: at('2026-11-27T18:00:00Z') },
  { from: 'Claude Code 2.1, weekly limit beyond a day', text: "You've hit your weekly limit · resets Nov 30, 8:41pm (America/New_York)", resetAt: at('2026-12-01T01:41:00Z') },
  { from: 'Claude Code 2.1, Opus limit in another year', text: "You've hit your Opus limit · resets Jan 2, 2027, 8am (Europe/Berlin)", resetAt: at('2027-01-02T07:00:00Z') },
  { from: 'Claude Code, zone named', text: "You've hit your limit · resets 3:20pm (UTC)", resetAt: at('2026-11-28T15:20:00Z') },
  { from: 'Claude Code, 5-hour limit', text: '5-hour limit reached ∙ resets 7pm (Europe/Paris)', resetAt: at('2026-11-27T18:00:00Z') },
  { from: 'Claude Code, no zone: the local one', text: '5-hour limit reached ∙ resets 1pm', zone: 'America/New_York', resetAt: at('2026-11-27T18:00:00Z') },
  { from: 'Claude Code, session limit', text: 'Session limit reached ∙ resets 3am (Asia/Tokyo)', resetAt: at('2026-11-27T18:00:00Z') },
  { from: 'Claude Code, weekly limit with a date', text: 'Opus weekly limit reached ∙ resets Dec 1, 10:30am (America/Los_Angeles)', resetAt: at('2026-12-01T18:30:00Z') },
  { from: 'Claude Code, weekly limit with a weekday', text: 'Weekly limit reached ∙ resets Mon 9am (Europe/Berlin)', resetAt: at('2026-11-30T08:00:00Z') },
  { from: 'Claude Code, older wording', text: 'Claude usage limit reached. Your limit will reset at 5pm (America/Santiago).', resetAt: at('2026-11-27T20:00:00Z') },
  { from: 'Codex, relative', text: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 3 hours 5 minutes.", resetAt: at('2026-11-29T19:05:00Z') },
  { from: 'Codex, hours and minutes', text: "You've hit your usage limit. Try again in 4 hours 12 minutes.", resetAt: at('2026-11-27T20:12:00Z') },
  { from: 'Codex, clock time in the local zone', text: "You've hit your usage limit. Upgrade to Plus to continue using Codex (https://openai.com/chatgpt/pricing), or try again at 3:20 PM.", zone: 'UTC', resetAt: at('2026-11-28T15:20:00Z') },
  { from: 'Codex, date and time', text: "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at Nov 28th, 2026 3:05 PM.", zone: 'UTC', resetAt: at('2026-11-28T15:05:00Z') },
  { from: 'ChatGPT backend body, resets_at', text: '{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1795806000}}', resetAt: at('2026-11-27T19:00:00Z') },
  { from: 'ChatGPT backend body, resets_in_seconds', text: '{"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","resets_in_seconds":5400}}', resetAt: at('2026-11-27T17:30:00Z') },
  { from: 'an ISO time', text: 'Usage limit reached; available again at 2026-11-27T21:45:00+01:00', resetAt: at('2026-11-27T20:45:00Z') },
  { from: 'a compact duration', text: 'You have reached your daily quota limit. Your quota will reset after 2h30m.', resetAt: at('2026-11-27T18:30:00Z') },
];

describe('a provider usage limit read to its reset instant', () => {
  it.each(messages)('$from', ({ text, zone, resetAt }) => {
    expect(usageLimitOf(text, now, zone ?? 'UTC')).toEqual({ resetAt });
  });

  it('says a limit was reached without an instant when the message names none', () => {
    expect(usageLimitOf("You've hit your usage limit. Upgrade to Pro to continue.", now, 'UTC')).toEqual({});
  });

  it('is not fooled by other failures, rate limits included (their wait is a node retry, not a resume)', () => {
    for (const text of ['Rate limit reached. Please try again in 1.5s.', 'Your credit balance is too low', 'API Error: 529 overloaded', 'resets 3pm']) {
      expect(usageLimitOf(text, now, 'UTC')).toBeUndefined();
    }
  });

  it('reads a time of day already past as tomorrow’s, and a date in January read in December as next year’s', () => {
    expect(usageLimitOf('5-hour limit reached ∙ resets 9am (UTC)', now, 'UTC')).toEqual({ resetAt: at('2026-11-28T09:00:00Z') });
    const lateDecember = Date.parse('2026-12-30T12:00:00Z');
    expect(usageLimitOf('Weekly limit reached ∙ resets Jan 2, 8am (UTC)', lateDecember, 'UTC')).toEqual({ resetAt: at('2027-01-02T08:00:00Z') });
  });

  it('reads wall times across daylight-saving changes in three zones', () => {
    // Spring forward: 2:30 does not exist that night and is read as 3:30 (the same instant as 2:30 before the jump).
    expect(new Date(instantOfWallTime({ year: 2026, month: 3, day: 8 }, 2, 30, 'America/New_York')).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(new Date(instantOfWallTime({ year: 2026, month: 3, day: 29 }, 12, 0, 'Europe/Paris')).toISOString()).toBe('2026-03-29T10:00:00.000Z');
    // Fall back: 1:30 happens twice; the first is taken.
    expect(new Date(instantOfWallTime({ year: 2026, month: 11, day: 1 }, 1, 30, 'America/New_York')).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(new Date(instantOfWallTime({ year: 2026, month: 4, day: 5 }, 2, 30, 'Australia/Sydney')).toISOString()).toBe('2026-04-04T15:30:00.000Z');
  });
});

describe('each provider path reads a usage limit as a quota until its reset', () => {
  it("Claude Code's error result", () => {
    const state = new ClaudeStreamState();
    state.read(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'Claude AI usage limit reached|1795802400', session_id: 's-1' }));
    expect(state.resultFailure?.provider).toMatchObject({ class: 'quota_exhausted', resetAt: '2026-11-27T18:00:00.000Z' });
    const named = new ClaudeStreamState();
    named.read(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: '5-hour limit reached ∙ resets 7pm (Europe/Paris)' }));
    expect(named.resultFailure?.provider.class).toBe('quota_exhausted');
    expect(Date.parse(named.resultFailure!.provider.resetAt!)).toBeGreaterThan(Date.now());
  });

  it("Codex's turn.failed message (which a rate-limit pattern used to read as a transient failure) and the backend's 429 body", () => {
    const state = new CodexStreamState();
    state.read(JSON.stringify({ type: 'turn.failed', error: { message: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes." } }));
    const before = Date.now();
    const failure = codexFailure(state, [], 1, '')!;
    expect(failure.provider.class).toBe('quota_exhausted');
    expect(Date.parse(failure.provider.resetAt!) - before).toBeGreaterThanOrEqual(125 * 60_000 - 1000);

    const body = JSON.stringify({ error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: 1795802400 } });
    const refused = codexFailure(new CodexStreamState(), [{ path: '/v1/responses', status: 429, headers: {}, errorBody: body }], 1, '')!;
    expect(refused.provider).toMatchObject({ class: 'quota_exhausted', resetAt: '2026-11-27T18:00:00.000Z' });
  });
});
