import { describe, expect, it } from 'vitest';
import { failedState } from '../../src/records/lifecycle.js';
import { provided, unavailable } from '../../src/records/measured.js';
import { computeRunTotals } from '../../src/records/run-totals.js';
import { countedUsageOf } from '../../src/records/run-totals-fold.js';
import { addToRunTotals, flatRunTotalsPatch } from '../../src/store/rules/run-totals.js';
import type { RunTotalsState } from '../../src/store/schemas/run-usage.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import { agentInput, agentSpendEvent, execInput, persist, recordEvent } from './fixtures.js';

/** The totals folded one event at a time, as the store keeps them, without the bookkeeping. */
function folded(events: readonly RunEvent[]): Record<string, unknown> {
  let state: RunTotalsState | undefined;
  for (const event of events) {
    const usage = countedUsageOf(event);
    if (usage !== undefined) state = addToRunTotals(state, usage);
  }
  if (!state) return {};
  const { counted: _counted, ...totals } = state;
  return totals;
}

const incomplete = recordEvent(
  agentInput({
    path: 'b',
    node: { id: 'b', kind: 'agent', source: { kind: 'inline' } },
    spend: { tokens: unavailable('incomplete'), costUsd: provided(0.5), stopReason: provided('end_turn'), numTurns: provided(2) },
  }),
);

/** Logs the incremental totals must agree on with the totals computed over the whole log. */
const logs: Record<string, RunEvent[]> = {
  'every completed and failed row': persist([
    agentSpendEvent('a', 0.25, { input: 100, output: 10, cacheRead: 50, cacheWrite: 5 }),
    agentSpendEvent('b', 0.5, { input: 200, output: 20, cacheRead: 70, cacheWrite: 0 }),
    agentSpendEvent('c', 0.125, { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 }, { lifecycle: failedState('overloaded') }),
  ]),
  'a reported zero': persist([agentSpendEvent('a', 0, { input: 0, output: 0 })]),
  'a tokensUnknown row between others (cost goes on)': persist([
    agentSpendEvent('a', 0.25, { input: 10, output: 1 }),
    incomplete,
    agentSpendEvent('c', 0.25, { input: 5, output: 5 }),
  ]),
  'an omitted measurement': persist([agentSpendEvent('a', 0.25, { input: 10, output: 1 }), agentSpendEvent('b', 0.25, undefined)]),
  'a cache axis missing from a later row': persist([
    agentSpendEvent('a', 0.1, { input: 10, output: 1, cacheRead: 4 }),
    agentSpendEvent('b', 0.1, { input: 10, output: 1 }),
  ]),
  'a cache axis missing from an earlier row': persist([
    agentSpendEvent('a', 0.1, { input: 10, output: 1 }),
    agentSpendEvent('b', 0.1, { input: 10, output: 1, cacheWrite: 3 }),
  ]),
  'a partial flag before any cache figure': persist([
    agentSpendEvent('a', 0.1, { input: 1, output: 1, cachePartial: true }),
    agentSpendEvent('b', 0.1, { input: 1, output: 1, cacheRead: 2 }),
  ]),
  'a roll-up restating its members': persist([
    agentSpendEvent('fix/draft', 0.5, { input: 10, output: 1 }),
    recordEvent(
      agentInput({
        path: 'fix',
        node: { id: 'fix', kind: 'loop_group' },
        accounting: 'aggregate',
        spend: { tokens: provided({ input: 10, output: 1 }), costUsd: provided(0.5), stopReason: unavailable('not_applicable'), numTurns: unavailable('not_applicable') },
        output: undefined,
      }),
    ),
  ]),
  'exec attempts only': persist([recordEvent(execInput()), recordEvent(execInput({ path: 'other', node: { id: 'other', kind: 'exec', runtime: 'sh' } }))]),
};

describe('run totals folded as each attempt ends', () => {
  for (const [name, events] of Object.entries(logs)) {
    it(`agree with the totals over the whole log: ${name}`, () => {
      expect(folded(events)).toEqual(computeRunTotals(events));
    });
  }

  it('keep token totals unavailable for good after a tokensUnknown row, while cost keeps accumulating', () => {
    expect(folded(logs['a tokensUnknown row between others (cost goes on)']!)).toEqual({ total_cost_usd: 1, total_tokens_incomplete: true });
  });

  it('count an exec attempt as a row that reported nothing', () => {
    const usage = countedUsageOf(recordEvent(execInput()));
    expect(usage).toEqual({});
    expect(addToRunTotals(undefined, usage!)).toEqual({ counted: { rows: 1, token_rows: 0, cache_read_rows: 0, cache_write_rows: 0 } });
  });

  it('patch every flat key, removing those absent', () => {
    const state = addToRunTotals(undefined, { costUsd: 0.5 });
    expect(flatRunTotalsPatch(state)).toEqual({
      total_cost_usd: 0.5,
      total_tokens_in: null,
      total_tokens_out: null,
      total_cache_read_tokens: null,
      total_cache_write_tokens: null,
      total_cache_partial: null,
      total_tokens_incomplete: null,
    });
  });
});
