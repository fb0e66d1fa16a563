import { describe, expect, it } from 'vitest';
import { resolveModelBinding } from '../../src/models/model-binding.js';
import { decideRetry } from '../../src/supervisor/run/retry-policy.js';
import { providerSlotsDriver } from '../supervisor/run/provider-slots-driver.js';

describe('model binding', () => {
  const install = { defaultAssistant: 'anthropic', assistants: { anthropic: { model: 'cfg-model' }, claude: { model: 'opus' } } };
  it('takes node, then workflow (same provider only), then config, then the provider default', () => {
    expect(resolveModelBinding({ node: { model: 'n' }, workflow: { model: 'w' }, layers: { install } })).toMatchObject({ provider: 'anthropic', model: 'n', modelSource: 'node' });
    expect(resolveModelBinding({ node: {}, workflow: { model: 'w' }, layers: { install } })).toMatchObject({ model: 'w', modelSource: 'workflow' });
    expect(resolveModelBinding({ node: { provider: 'claude' }, workflow: { model: 'w' }, layers: { install } })).toMatchObject({ provider: 'claude', model: 'opus', modelSource: 'config' });
    expect(resolveModelBinding({ node: { provider: 'openai-compatible' }, workflow: {}, layers: { install } })).toMatchObject({ model: undefined, modelSource: 'provider_default' });
    expect(resolveModelBinding({ node: {}, workflow: {}, layers: {} })).toMatchObject({ provider: 'claude' });
    expect(resolveModelBinding({ node: { provider: 'nope' }, workflow: {}, layers: { install } })).toMatchObject({ ok: false });
  });
});

describe('retry decisions for provider failures', () => {
  const policy = { maxAttempts: 3, delayMs: 1000, onError: 'transient' as const };
  it('never retries retryable: false, waits at least Retry-After, retries rate limits', () => {
    expect(decideRetry({ ...policy, onError: 'all' }, { failureKind: 'fatal', retryable: false }, 1)).toEqual({ retry: false });
    expect(decideRetry(policy, { failureKind: 'rate_limited', retryAfterMs: 9000 }, 1, () => 0)).toEqual({ retry: true, delayMs: 9000 });
    expect(decideRetry(policy, { failureKind: 'overloaded' }, 2, () => 1)).toEqual({ retry: true, delayMs: 2500 });
    expect(decideRetry(policy, { failureKind: 'timeout' }, 1)).toEqual({ retry: false });
  });
});

describe('provider slots', () => {
  it('gives a freed slot to the first in line and counts what waits', () => {
    const slots = providerSlotsDriver({ claude: 2 });
    const [a, b, c, d] = [{}, {}, {}, {}];
    const woken: string[] = [];
    expect(slots.tryAcquire('claude', a, () => {})).toEqual({ acquired: true });
    expect(slots.tryAcquire('claude', b, () => {})).toEqual({ acquired: true });
    expect(slots.tryAcquire('claude', c, () => woken.push('c'))).toEqual({ acquired: false, position: 1, newlyQueued: true });
    expect(slots.tryAcquire('claude', d, () => woken.push('d'))).toEqual({ acquired: false, position: 2, newlyQueued: true });
    expect(slots.stats().claude).toEqual({ active: 2, queued: 2, limit: 2 });
    slots.release('claude');
    // The first in line is woken to take the slot; the ones behind it (up to 10) to show their new place.
    expect(woken).toEqual(['c', 'd']);
    // d cannot jump the line: c keeps the slot it was woken for.
    expect(slots.tryAcquire('claude', d, () => {})).toMatchObject({ acquired: false, position: 2 });
    expect(slots.tryAcquire('claude', c, () => {})).toEqual({ acquired: true });
    expect(slots.tryAcquire('exec-free', {}, () => {})).toEqual({ acquired: true });
  });
});
