import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProviderSlots } from '../../../src/supervisor/run/provider-limits.js';
import { ProviderRates, RATE_WINDOW_MS } from '../../../src/supervisor/run/provider-rates.js';

/**
 * Per-provider rate budgets over a sliding minute, through the slots the supervisor hands out:
 * a call held back waits in line (position shown) and is woken when the minute has room. The
 * minute is V8's fake clock here, so the test does not wait one.
 */

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('requests per minute', () => {
  it('starts at most N calls in any 60 s and wakes the line when the oldest leaves the minute', () => {
    const slots = new ProviderSlots({}, new ProviderRates({ anthropic: { requestsPerMinute: 2 } }));
    const woken: string[] = [];
    const take = (name: string) => slots.tryAcquire('codex', { name } as object, () => woken.push(name));
    const a = {}, b = {}, c = {};
    expect(slots.tryAcquire('anthropic', a, () => {})).toEqual({ acquired: true });
    vi.advanceTimersByTime(10_000);
    expect(slots.tryAcquire('anthropic', b, () => {})).toEqual({ acquired: true });
    // Both calls end at once: the slots are free, the minute is not.
    slots.release('anthropic');
    slots.release('anthropic');
    const wake = vi.fn();
    expect(slots.tryAcquire('anthropic', c, wake)).toEqual({ acquired: false, position: 1, newlyQueued: true });
    vi.advanceTimersByTime(RATE_WINDOW_MS - 10_000 - 1);
    expect(wake).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(wake).toHaveBeenCalledTimes(1);
    expect(slots.tryAcquire('anthropic', c, wake)).toEqual({ acquired: true });
    // Another provider has no budget and is never held.
    for (let i = 0; i < 5; i++) expect(take(`other-${i}`)).toEqual({ acquired: true });
    expect(woken).toEqual([]);
  });

  it('keeps both limits: a free slot is not enough when the minute is spent, and the reverse', () => {
    const slots = new ProviderSlots({ codex: 1 }, new ProviderRates({ codex: { requestsPerMinute: 3 } }));
    expect(slots.tryAcquire('codex', {}, () => {})).toEqual({ acquired: true });
    expect(slots.tryAcquire('codex', {}, () => {})).toMatchObject({ acquired: false, position: 1 });
    expect(slots.stats().codex).toEqual({ active: 1, queued: 1, limit: 1 });
  });
});

describe('tokens per minute', () => {
  it('starts no call while the tokens reported in the last minute reach the budget', () => {
    const rates = new ProviderRates({ 'openai-compatible': { tokensPerMinute: 1000 } });
    const slots = new ProviderSlots({}, rates);
    expect(slots.tryAcquire('openai-compatible', {}, () => {})).toEqual({ acquired: true });
    slots.release('openai-compatible', 600);
    expect(slots.tryAcquire('openai-compatible', {}, () => {})).toEqual({ acquired: true });
    vi.advanceTimersByTime(20_000);
    slots.release('openai-compatible', 500);
    const wake = vi.fn();
    const held = {};
    expect(slots.tryAcquire('openai-compatible', held, wake)).toMatchObject({ acquired: false, position: 1 });
    // Room comes back when the 600 tokens of the first call leave the minute (1,100 → 500).
    expect(rates.msUntilRoom('openai-compatible')).toBe(RATE_WINDOW_MS - 20_000);
    vi.advanceTimersByTime(RATE_WINDOW_MS - 20_000);
    expect(wake).toHaveBeenCalled();
    expect(slots.tryAcquire('openai-compatible', held, wake)).toEqual({ acquired: true });
  });

  it('counts only what the provider reported: an attempt without a token count adds nothing', () => {
    const rates = new ProviderRates({ anthropic: { tokensPerMinute: 10 } });
    rates.used('anthropic', undefined);
    rates.used('anthropic', Number.NaN);
    expect(rates.room('anthropic')).toBe(Infinity);
    rates.used('anthropic', 10);
    expect(rates.room('anthropic')).toBe(0);
  });
});
