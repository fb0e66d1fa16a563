import { describe, expect, it } from 'vitest';
import { finishSpend, initialSpend, sumObservations } from '../../src/records/index.js';

/** Accounting rules 1 and 2 over the calls of one attempt (a best-effort provider asked again). */

const reports = { tokens: 'supported', costUsd: 'supported', stopReason: 'supported', numTurns: 'supported', resolvedModel: 'supported' } as const;
const spendOf = (calls: Parameters<typeof sumObservations>[0]) => finishSpend(initialSpend(reports), sumObservations(calls));

describe('sumObservations', () => {
  it('is the one call when there is one, and nothing when there is none', () => {
    const one = { tokens: { input: 1, output: 2 }, stopReason: 'stop' };
    expect(sumObservations([one])).toBe(one);
    expect(sumObservations([])).toEqual({});
  });

  it('sums tokens, cost and turns; the stop reason is the last call\'s', () => {
    const spend = spendOf([
      { tokens: { input: 10, output: 3, total: 13, cacheRead: 4 }, costUsd: 0.01, numTurns: 1, stopReason: 'length' },
      { tokens: { input: 20, output: 5, total: 25, cacheRead: 6 }, costUsd: 0.02, numTurns: 2, stopReason: 'stop' },
    ]);
    expect(spend.tokens).toEqual({ source: 'provider', value: { input: 30, output: 8, total: 38, cacheRead: 10 } });
    expect(spend.costUsd).toEqual({ source: 'provider', value: 0.03 });
    expect(spend.numTurns).toEqual({ source: 'provider', value: 3 });
    expect(spend.stopReason).toEqual({ source: 'provider', value: 'stop' });
  });

  it('never reads a partial sum as complete: a paid call without tokens makes them incomplete, without cost makes it partial', () => {
    const spend = spendOf([{ tokens: { input: 10, output: 3 }, costUsd: 0.01, numTurns: 1 }, { stopReason: 'stop' }]);
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'incomplete' });
    expect(spend.costUsd).toEqual({ source: 'provider', value: 0.01, partial: true });
    // Turns summed over some calls only would be an estimate: not reported.
    expect(spend.numTurns).toEqual({ source: 'unavailable', reason: 'not_reported' });
  });

  it('marks a cache axis one call lacked as a floor, and leaves out a total or a cost some call did not state', () => {
    const summed = sumObservations([
      { tokens: { input: 10, output: 3, cacheRead: 4, total: 13, cost: 0.5 } },
      { tokens: { input: 1, output: 1, cacheRead: undefined, cachePartial: false } },
    ]);
    expect(summed.tokens).toEqual({ input: 11, output: 4, cacheRead: 4, cachePartial: true });
  });

  it('passes a malformed observation on, so the record says invalid', () => {
    const spend = spendOf([
      { tokens: { input: 1, output: 1 }, costUsd: 0.01, numTurns: 1 },
      { tokens: { input: -5, output: 'many' }, costUsd: Number.NaN, numTurns: Infinity },
    ]);
    expect(spend.tokens).toEqual({ source: 'unavailable', reason: 'invalid' });
    expect(spend.costUsd).toEqual({ source: 'unavailable', reason: 'invalid' });
    expect(spend.numTurns).toEqual({ source: 'unavailable', reason: 'invalid' });
  });

  it('keeps a provider\'s own tokensUnknown signal', () => {
    expect(spendOf([{ tokens: { input: 1, output: 1 } }, { tokens: { input: 1, output: 1 }, tokensUnknown: true }]).tokens).toEqual({ source: 'unavailable', reason: 'incomplete' });
    expect(spendOf([{}, {}]).tokens).toEqual({ source: 'unavailable', reason: 'not_reported' });
  });
});
