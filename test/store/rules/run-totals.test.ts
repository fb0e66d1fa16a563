import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldRunTotals, storedTotalsOf, type StoredTotals } from '../../../src/store/rules/run-totals.js';
import type { RunTotalsAddition } from '../../../src/store/schemas/run-usage.js';

const nothing: StoredTotals = { totals: undefined, scope: [] };

describe('the run totals fold', () => {
  it('writes each run’s new totals once per batch, and adds a costed child’s spend to each run above it', () => {
    const stored: Record<string, StoredTotals> = { leaf: { totals: undefined, scope: ['mid', 'root'] }, mid: nothing };
    const writes = foldRunTotals(
      [
        { run_id: 'leaf', adds_to_totals: { tokens: { input: 10, output: 2 }, costUsd: 0.25 } },
        { run_id: 'leaf', adds_to_totals: { costUsd: 0.5 } },
        { run_id: 'mid', adds_to_totals: { tokens: { input: 1, output: 1 } } },
      ],
      (id) => stored[id] ?? nothing,
    );
    expect(writes.runs.map((r) => [r.runId, r.totals.total_cost_usd, r.totals.counted.rows])).toEqual([['leaf', 0.75, 2], ['mid', undefined, 1]]);
    expect(writes.runs[0]!.flat).toMatchObject({ total_tokens_in: 10, total_tokens_out: 2, total_cost_usd: 0.75, total_cache_partial: null });
    expect(writes.ancestors).toEqual([{ runId: 'mid', costUsd: 0.75 }, { runId: 'root', costUsd: 0.75 }]);
  });

  it('writes nothing for events that add nothing (every bash and script attempt)', () => {
    expect(foldRunTotals([{ run_id: 'r' }, { run_id: 'r', adds_to_totals: {} }], () => nothing)).toEqual({ runs: [], ancestors: [] });
  });

  it('starts over from totals this version cannot read, rather than block the attempt’s end', () => {
    expect(storedTotalsOf({ total_cost_usd: 'lots' }, ['a'])).toEqual({ totals: undefined, scope: ['a'] });
    expect(storedTotalsOf(undefined, 'not a list')).toEqual({ totals: undefined, scope: [] });
  });

  it('property: the cost total is the sum of the costs folded in, whatever the batches', () => {
    const addition: fc.Arbitrary<RunTotalsAddition> = fc.record(
      { costUsd: fc.integer({ min: 0, max: 1000 }).map((c) => c / 8), tokens: fc.record({ input: fc.nat(1000), output: fc.nat(1000) }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(fc.array(addition)), (batches) => {
        let stored: StoredTotals = nothing;
        for (const batch of batches) {
          const writes = foldRunTotals(batch.map((adds) => ({ run_id: 'r', adds_to_totals: adds })), () => stored);
          if (writes.runs[0]) stored = { ...stored, totals: writes.runs[0].totals };
        }
        const all = batches.flat().filter((a) => Object.keys(a).length > 0);
        const cost = all.reduce((sum, a) => sum + (a.costUsd ?? 0), 0);
        expect(stored.totals?.counted.rows ?? 0).toBe(all.length);
        expect(stored.totals?.total_cost_usd ?? 0).toBe(cost);
        expect(stored.totals?.total_tokens_in ?? 0).toBe(all.reduce((sum, a) => sum + (a.tokens?.input ?? 0), 0));
      }),
    );
  });
});
