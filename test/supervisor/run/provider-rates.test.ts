import { describe, expect, it } from 'vitest';
import { providerSlotsDriver } from './provider-slots-driver.js';
import { ProviderRates, RATE_WINDOW_MS } from '../../../src/supervisor/run/provider-rates.js';

/**
 * Per-provider rate budgets over a sliding minute, through the slots the supervisor hands out:
 * a call held back waits in line (position shown) and is woken when the minute has room. The
 * minute is the clock ProviderRates takes, moved by the test, so the test does not wait one.
 */

/** A clock the test moves by hand: real time is added only when `real` is set (for the wake timer). */
function testClock(opts: { real?: boolean } = {}) {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const realAtStart = Date.now();
  let moved = 0;
  return {
    now: () => start + moved + (opts.real ? Date.now() - realAtStart : 0),
    advance(ms: number) {
      moved += ms;
    },
  };
}

/** A wake callback that counts its calls; `next()` resolves at the next call. */
function wakeCounter() {
  let calls = 0;
  let waiting: (() => void)[] = [];
  return {
    wake: () => {
      calls++;
      for (const resolve of waiting.splice(0)) resolve();
    },
    get calls() {
      return calls;
    },
    next: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

describe('requests per minute', () => {
  it('starts at most N calls in any 60 s; the minute frees room when the oldest start leaves it', () => {
    const clock = testClock();
    const rates = new ProviderRates({ anthropic: { requestsPerMinute: 2 } }, clock.now);
    const slots = providerSlotsDriver({}, rates);
    const woken: string[] = [];
    const take = (name: string) => slots.tryAcquire('codex', { name } as object, () => woken.push(name));
    const a = {}, b = {}, c = {};
    expect(slots.tryAcquire('anthropic', a, () => {})).toEqual({ acquired: true });
    clock.advance(10_000);
    expect(slots.tryAcquire('anthropic', b, () => {})).toEqual({ acquired: true });
    // Both calls end at once: the slots are free, the minute is not.
    slots.release('anthropic');
    slots.release('anthropic');
    const held = wakeCounter();
    expect(slots.tryAcquire('anthropic', c, held.wake)).toEqual({ acquired: false, position: 1, newlyQueued: true });
    expect(rates.msUntilRoom('anthropic')).toBe(RATE_WINDOW_MS - 10_000);
    clock.advance(RATE_WINDOW_MS - 10_000 - 1);
    // One millisecond before the first start leaves the minute: still no room, the call stays in line.
    expect(rates.room('anthropic')).toBe(0);
    expect(slots.tryAcquire('anthropic', c, held.wake)).toEqual({ acquired: false, position: 1, newlyQueued: false });
    clock.advance(1);
    expect(rates.room('anthropic')).toBe(1);
    expect(slots.tryAcquire('anthropic', c, held.wake)).toEqual({ acquired: true });
    // Another provider has no budget and is never held.
    for (let i = 0; i < 5; i++) expect(take(`other-${i}`)).toEqual({ acquired: true });
    expect(woken).toEqual([]);
  });

  it('wakes the head of the line by itself when the minute frees room', async () => {
    const clock = testClock({ real: true });
    const rates = new ProviderRates({ anthropic: { requestsPerMinute: 1 } }, clock.now);
    const slots = providerSlotsDriver({}, rates);
    expect(slots.tryAcquire('anthropic', {}, () => {})).toEqual({ acquired: true });
    slots.release('anthropic');
    // The first start leaves the minute 30 ms from now (real time), so the wake timer is short.
    clock.advance(RATE_WINDOW_MS - 30);
    const waiter = {};
    const held = wakeCounter();
    expect(slots.tryAcquire('anthropic', waiter, held.wake)).toMatchObject({ acquired: false, position: 1 });
    expect(held.calls).toBe(0);
    // Only a wake prompts another try. A timer may fire a millisecond before the wall clock says
    // the minute has freed (the two round differently); the refusal then arms it again, and the
    // next wake brings the slot. Never more than a couple of tries.
    let answer: ReturnType<typeof slots.tryAcquire>;
    let tries = 0;
    do {
      await held.next();
      tries++;
      answer = slots.tryAcquire('anthropic', waiter, held.wake);
    } while (!answer.acquired && tries < 5);
    expect(answer).toEqual({ acquired: true });
    expect(tries).toBeLessThanOrEqual(2);
  });

  it('keeps both limits: a free slot is not enough when the minute is spent, and the reverse', () => {
    const clock = testClock();
    const slots = providerSlotsDriver({ codex: 1 }, new ProviderRates({ codex: { requestsPerMinute: 3 } }, clock.now));
    expect(slots.tryAcquire('codex', {}, () => {})).toEqual({ acquired: true });
    expect(slots.tryAcquire('codex', {}, () => {})).toMatchObject({ acquired: false, position: 1 });
    expect(slots.stats().codex).toEqual({ active: 1, queued: 1, limit: 1 });
  });
});

describe('tokens per minute', () => {
  it('starts no call while the tokens reported in the last minute reach the budget', () => {
    const clock = testClock();
    const rates = new ProviderRates({ 'openai-compatible': { tokensPerMinute: 1000 } }, clock.now);
    const slots = providerSlotsDriver({}, rates);
    expect(slots.tryAcquire('openai-compatible', {}, () => {})).toEqual({ acquired: true });
    slots.release('openai-compatible', 600);
    expect(slots.tryAcquire('openai-compatible', {}, () => {})).toEqual({ acquired: true });
    clock.advance(20_000);
    slots.release('openai-compatible', 500);
    const held = {};
    const wake = wakeCounter();
    expect(slots.tryAcquire('openai-compatible', held, wake.wake)).toMatchObject({ acquired: false, position: 1 });
    // Room comes back when the 600 tokens of the first call leave the minute (1,100 → 500).
    expect(rates.msUntilRoom('openai-compatible')).toBe(RATE_WINDOW_MS - 20_000);
    clock.advance(RATE_WINDOW_MS - 20_000 - 1);
    expect(rates.room('openai-compatible')).toBe(0);
    clock.advance(1);
    expect(rates.room('openai-compatible')).toBe(Infinity);
    expect(slots.tryAcquire('openai-compatible', held, wake.wake)).toEqual({ acquired: true });
  });

  it('counts only what the provider reported: an attempt without a token count adds nothing', () => {
    const rates = new ProviderRates({ anthropic: { tokensPerMinute: 10 } }, testClock().now);
    rates.used('anthropic', undefined);
    rates.used('anthropic', Number.NaN);
    expect(rates.room('anthropic')).toBe(Infinity);
    rates.used('anthropic', 10);
    expect(rates.room('anthropic')).toBe(0);
  });
});
