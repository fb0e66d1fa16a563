import { describe, expect, it } from 'vitest';
import { attemptEndedEvent, type AttemptRef } from '../../../src/records/index.js';
import { provided, unavailable } from '../../../src/records/measured.js';
import type { Run } from '../../../src/store/schemas/run.js';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** Run totals: kept by the transaction that writes an attempt's end, whoever writes it. */
export function describeRunTotalsContract(backend: StoreBackend): void {
  describe('run totals', () => {
    const h = useHarness(backend);
    const startedAt = '2026-01-01T00:00:00.000Z';

    function agentAttempt(run: Run, attemptId: string, tokens: { input: number; output: number }, cost: number): AttemptRef {
      return {
        runId: run.id,
        conversationId: run.conversation_id,
        path: 'ask',
        node: { id: 'ask', kind: 'agent', source: { kind: 'inline' } },
        invocation: { id: 'inv-1', startedAt, loopPath: [] },
        attemptId,
        startedAt,
        spend: { tokens: provided(tokens), costUsd: provided(cost), stopReason: provided('end_turn'), numTurns: unavailable('not_reported') },
      };
    }

    it('adds an attempt’s spend with its terminal event, once, even when its end is written twice', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const end = attemptEndedEvent(agentAttempt(run, 'att-1', { input: 10, output: 2 }, 0.25), { status: 'failed', error: 'boom', failureKind: 'transient' });
      expect(await store.appendEvents([end])).toHaveLength(1);
      expect((await store.getRun(run.id))!.metadata).toMatchObject({
        totals: { total_tokens_in: 10, total_tokens_out: 2, total_cost_usd: 0.25, counted: { rows: 1 } },
        total_tokens_in: 10,
        total_cost_usd: 0.25,
      });
      // A second writer closing the same attempt (the pool and a take-over) is refused, and adds nothing.
      expect(await store.appendEvents([end])).toHaveLength(0);
      const ended = attemptEndedEvent(agentAttempt(run, 'att-2', { input: 5, output: 1 }, 0.5), { status: 'completed', output: { text: 'ok' } });
      await store.appendEvents([ended]);
      expect((await store.getRun(run.id))!.metadata.totals).toMatchObject({ total_tokens_in: 15, total_tokens_out: 3, total_cost_usd: 0.75, counted: { rows: 2 } });
    });

    it('adds a child’s costed attempts to each run above it with a budget (its budget_scope), in the same transaction, once', async () => {
      const store = h().open();
      const root = await store.createRun(newRun({ metadata: { budget: { usd: 1 } } }));
      const middle = await store.createRun(newRun({ metadata: { budget: { usd: 0.5 }, budget_scope: [root.id] } }));
      const leaf = await store.createRun(newRun({ metadata: { budget_scope: [middle.id, root.id] } }));
      const end = attemptEndedEvent(agentAttempt(leaf, 'att-1', { input: 10, output: 2 }, 0.25), { status: 'completed', output: { text: 'ok' } });
      await store.appendEvents([end]);
      await store.appendEvents([end]);
      await store.appendEvents([attemptEndedEvent(agentAttempt(middle, 'att-2', { input: 1, output: 1 }, 0.125), { status: 'completed', output: { text: 'ok' } })]);
      // Another metadata write of the root in between is a patch: the count survives it.
      await store.acquireRun({ runId: root.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', metadataPatch: { approval: null }, events: [] });
      await store.appendEvents([attemptEndedEvent(agentAttempt(leaf, 'att-3', { input: 1, output: 1 }, 0), { status: 'completed', output: { text: 'ok' } })]);
      const read = async (run: Run) => (await store.getRun(run.id))!.metadata;
      expect(await read(leaf)).toMatchObject({ total_cost_usd: 0.25 });
      expect((await read(leaf)).descendants_cost_usd).toBeUndefined();
      expect(await read(middle)).toMatchObject({ total_cost_usd: 0.125, descendants_cost_usd: 0.25 });
      expect(await read(root)).toMatchObject({ descendants_cost_usd: 0.375 });
      expect((await read(root)).total_cost_usd).toBeUndefined();
    });

    it('adds the spend of attempts closed by a run’s transition in that transition, and keeps it across a resume', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      const closing = attemptEndedEvent(agentAttempt(run, 'att-1', { input: 3, output: 4 }, 0.125), { status: 'failed', error: 'Cancelled', failureKind: 'cancelled' });
      const failed = await store.transitionRun({ runId: run.id, ownerId: 'sup-a', status: 'failed', error: 'x', release: true, events: [closing] });
      expect(failed.metadata.totals).toMatchObject({ total_tokens_in: 3, total_tokens_out: 4, total_cost_usd: 0.125 });
      const resumed = await store.acquireRun({
        runId: run.id, ownerId: 'sup-b', leaseMs: 60_000, fromStatuses: ['failed'], status: 'running', resume: true, events: [],
      });
      expect(resumed!.metadata.totals).toEqual(failed.metadata.totals);
    });
  });
}
