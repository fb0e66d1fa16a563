import { describe, expect, it } from 'vitest';
import { CairnError } from '../../src/shared/errors.js';
import { buildCacheRecord } from '../../src/records/build-record.js';
import { cacheEventOf } from '../../src/records/event-data.js';
import { failedState, startedState } from '../../src/records/lifecycle.js';
import { provided, unavailable } from '../../src/records/measured.js';
import { computeRunTotals } from '../../src/records/run-totals.js';
import { agentInput, agentSpendEvent, execInput, persist, recordEvent, RUN_ID } from './fixtures.js';

const workflowStarted = { event_type: 'workflow_started', step_name: null, data: { workflowName: 'demo' } };

describe('run totals', () => {
  it('are absent, not zero, when nothing reported usage', () => {
    const events = persist([workflowStarted, recordEvent(execInput({ lifecycle: startedState(), output: undefined })), recordEvent(execInput())]);
    expect(computeRunTotals(events)).toEqual({});
  });

  it('sum the own spend of every completed and failed row', () => {
    const events = persist([
      agentSpendEvent('a', 0.25, { input: 100, output: 10, cacheRead: 50, cacheWrite: 5 }),
      agentSpendEvent('b', 0.5, { input: 200, output: 20, cacheRead: 70, cacheWrite: 0 }),
      agentSpendEvent('c', 0.125, { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, { lifecycle: failedState('overloaded') }),
    ]);
    expect(computeRunTotals(events)).toEqual({
      total_cost_usd: 0.875,
      total_tokens_in: 301,
      total_tokens_out: 32,
      total_cache_read_tokens: 120,
      total_cache_write_tokens: 5,
    });
  });

  it('keep a reported zero as a total of zero', () => {
    expect(computeRunTotals(persist([agentSpendEvent('a', 0, { input: 0, output: 0 })]))).toEqual({
      total_cost_usd: 0,
      total_tokens_in: 0,
      total_tokens_out: 0,
    });
  });

  it('never add a roll-up row to the rows it restates', () => {
    const events = persist([
      agentSpendEvent('fix/draft', 0.5, { input: 10, output: 1 }),
      agentSpendEvent('fix/check', 0.25, { input: 20, output: 2 }),
      recordEvent(
        agentInput({
          path: 'fix',
          node: { id: 'fix', kind: 'loop_group' },
          accounting: 'aggregate',
          spend: { tokens: provided({ input: 30, output: 3 }), costUsd: provided(0.75), stopReason: unavailable('not_applicable'), numTurns: unavailable('not_applicable') },
          output: undefined,
        }),
      ),
      { event_type: 'node_completed', step_name: 'old-rollup', data: { cost_usd: 9, aggregate: true } },
    ]);
    expect(computeRunTotals(events)).toMatchObject({ total_cost_usd: 0.75, total_tokens_in: 30, total_tokens_out: 3 });
  });

  it('leave token totals unavailable when a counted row was incomplete, while cost keeps accumulating', () => {
    const incomplete = agentInput({
      path: 'b',
      node: { id: 'b', kind: 'agent', source: { kind: 'inline' } },
      spend: { tokens: unavailable('incomplete'), costUsd: provided(0.5), stopReason: provided('end_turn'), numTurns: provided(2) },
    });
    const totals = computeRunTotals(persist([agentSpendEvent('a', 0.25, { input: 10, output: 1 }), recordEvent(incomplete)]));
    expect(totals).toEqual({ total_cost_usd: 0.75, total_tokens_incomplete: true });
  });

  it('do not let an ordinary omitted measurement invalidate the token total', () => {
    const totals = computeRunTotals(persist([agentSpendEvent('a', 0.25, { input: 10, output: 1 }), agentSpendEvent('b', 0.25, undefined)]));
    expect(totals).toEqual({ total_cost_usd: 0.5, total_tokens_in: 10, total_tokens_out: 1 });
  });

  it('mark cache totals partial when a row reported tokens without a cache axis', () => {
    const totals = computeRunTotals(
      persist([agentSpendEvent('a', 0.1, { input: 10, output: 1, cacheRead: 4 }), agentSpendEvent('b', 0.1, { input: 10, output: 1 })]),
    );
    expect(totals).toMatchObject({ total_cache_read_tokens: 4, total_cache_partial: true });
    expect(totals).not.toHaveProperty('total_cache_write_tokens');
    const flagged = computeRunTotals(persist([agentSpendEvent('a', 0.1, { input: 1, output: 1, cacheRead: 1, cacheWrite: 1, cachePartial: true })]));
    expect(flagged.total_cache_partial).toBe(true);
  });

  it('count a composed instance total instead of its inner rows (accounting rule 4)', () => {
    const instanceTotal = (path: string, cost: number) =>
      agentSpendEvent(path, cost, { input: 30, output: 3 }, { node: { id: 'review', kind: 'compose_fan_out_instance' }, accounting: 'instance', output: undefined });
    const events = persist([
      agentSpendEvent('review[0]/lint', 0.1, { input: 10, output: 1 }),
      agentSpendEvent('review[0]/fix', 0.2, { input: 20, output: 2 }),
      instanceTotal('review[0]', 0.3),
      // Instance 1 crashed before its terminal row: its inner rows are all there is.
      agentSpendEvent('review[1]/lint', 0.05, { input: 5, output: 1 }),
    ]);
    const totals = computeRunTotals(events);
    expect(totals.total_cost_usd).toBeCloseTo(0.35, 10);
    expect(totals).toMatchObject({ total_tokens_in: 35, total_tokens_out: 4 });
  });

  it('add nothing for a prior-success replay', () => {
    const replay = cacheEventOf(
      buildCacheRecord({ runId: RUN_ID, path: 'a', node: { id: 'a', kind: 'agent', source: { kind: 'inline' } }, cache: { action: 'replayed', output: { text: 'x' } } }),
    );
    expect(computeRunTotals(persist([agentSpendEvent('a', 0.25, { input: 1, output: 1 }), replay])).total_cost_usd).toBe(0.25);
  });

  it('read usage from historical rows with flat keys only', () => {
    const events = persist([
      { event_type: 'node_completed', step_name: 'a', data: { node_output: 'x', tokens: { input: 5, output: 6, cacheRead: 1 }, cost_usd: 0.5 } },
      { event_type: 'node_failed', step_name: 'b', data: { error: 'boom', cost_usd: 0.25 } },
      { event_type: 'node_completed', step_name: 'c', data: { tokens: { input: 'many' }, cost_usd: Number.NaN } },
    ]);
    expect(computeRunTotals(events)).toEqual({ total_cost_usd: 0.75, total_tokens_in: 5, total_tokens_out: 6, total_cache_read_tokens: 1 });
  });

  it('refuse an unreadable row unless the caller chooses to skip it', () => {
    const events = persist([agentSpendEvent('a', 0.25, undefined), { event_type: 'node_completed', step_name: 'b', data: { execution: { runId: RUN_ID } } }]);
    expect(() => computeRunTotals(events)).toThrow(CairnError);
    const skipped: number[] = [];
    expect(computeRunTotals(events, { onUnreadable: (event) => skipped.push(event.seq) })).toEqual({ total_cost_usd: 0.25 });
    expect(skipped).toEqual([2]);
  });
});
