import { describe, expect, it } from 'vitest';
import { provided, unavailable, valueOf } from '../../src/records/measured.js';
import {
  finishResolvedModel,
  finishSpend,
  initialResolvedModel,
  initialSpend,
  notApplicableSpend,
  type MeasurementReports,
} from '../../src/records/spend.js';
import { spendSchema } from '../../src/records/schemas/node-spend.js';

const reports: MeasurementReports = {
  tokens: 'supported',
  costUsd: 'unsupported',
  stopReason: 'supported',
  numTurns: 'undeclared',
  resolvedModel: 'supported',
};

describe('spend at the start of an attempt (accounting rule 1)', () => {
  it('marks every measurement not_applicable for a node that calls no provider', () => {
    const spend = notApplicableSpend();
    expect(Object.values(spend)).toEqual(Array(4).fill({ source: 'unavailable', reason: 'not_applicable' }));
    spendSchema.parse(spend);
  });

  it('derives availability from what the provider declares', () => {
    expect(initialSpend(reports)).toEqual({
      tokens: unavailable('not_reported'),
      costUsd: unavailable('unsupported'),
      stopReason: unavailable('not_reported'),
      numTurns: unavailable('unknown'),
    });
    expect(initialResolvedModel(reports)).toEqual(unavailable('not_reported'));
    expect(initialResolvedModel({ ...reports, resolvedModel: 'undeclared' })).toEqual(unavailable('unknown'));
  });
});

describe('spend at the end of an attempt', () => {
  const initial = initialSpend(reports);

  it('records what the provider reported, a zero included', () => {
    const spend = finishSpend(initial, { tokens: { input: 0, output: 7 }, costUsd: 0, stopReason: 'end_turn', numTurns: 1 });
    expect(spend).toEqual({
      tokens: provided({ input: 0, output: 7 }),
      costUsd: provided(0),
      stopReason: provided('end_turn'),
      numTurns: provided(1),
    });
    spendSchema.parse(spend);
  });

  it('keeps the initial availability of what was not observed, never a zero', () => {
    const spend = finishSpend(initial, { stopReason: 'max_tokens' });
    expect(spend.tokens).toEqual(unavailable('not_reported'));
    expect(spend.costUsd).toEqual(unavailable('unsupported'));
    expect(spend.numTurns).toEqual(unavailable('unknown'));
    expect(valueOf(spend.tokens)).toBeUndefined();
  });

  it('marks rejected and non-finite observations invalid', () => {
    const spend = finishSpend(initial, {
      tokens: { input: Number.NaN, output: 3 },
      costUsd: Number.POSITIVE_INFINITY,
      stopReason: 42,
      numTurns: -1,
    });
    expect(Object.values(spend)).toEqual(Array(4).fill(unavailable('invalid')));
    expect(finishSpend(initial, { tokens: { input: 1 } }).tokens).toEqual(unavailable('invalid'));
    expect(finishSpend(initial, { tokens: 'lots' }).tokens).toEqual(unavailable('invalid'));
    expect(finishSpend(initial, { tokens: { input: 1, output: 2, cacheRead: Number.NaN } }).tokens).toEqual(unavailable('invalid'));
    expect(finishSpend(initial, { costUsd: '0.10' }).costUsd).toEqual(unavailable('invalid'));
  });

  it('marks tokens incomplete on a tokensUnknown signal while cost still counts', () => {
    const spend = finishSpend(initial, { tokensUnknown: true, tokens: { input: 10, output: 5 }, costUsd: 0.5 });
    expect(spend.tokens).toEqual(unavailable('incomplete'));
    expect(spend.costUsd).toEqual(provided(0.5));
  });

  it('records a partial cost as partial', () => {
    expect(finishSpend(initial, { costUsd: 1.5, costPartial: true }).costUsd).toEqual({ source: 'provider', value: 1.5, partial: true });
  });

  it('keeps only the token axes of the record and treats undefined axes as omitted', () => {
    const spend = finishSpend(initial, {
      tokens: { input: 10, output: 5, cacheRead: undefined, cachePartial: false, reasoning: 99 },
    });
    expect(spend.tokens).toEqual(provided({ input: 10, output: 5 }));
    spendSchema.parse(spend);
  });

  it('records the resolved model only when the provider named one', () => {
    const initialModel = initialResolvedModel(reports);
    expect(finishResolvedModel(initialModel, 'claude-opus-4')).toEqual(provided('claude-opus-4'));
    expect(finishResolvedModel(initialModel, undefined)).toEqual(unavailable('not_reported'));
    expect(finishResolvedModel(initialModel, '')).toEqual(unavailable('invalid'));
  });
});
