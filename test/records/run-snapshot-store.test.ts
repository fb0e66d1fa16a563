import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildExecutionRecord } from '../../src/records/build-record.js';
import { nodeEventOf } from '../../src/records/event-data.js';
import { startedState } from '../../src/records/lifecycle.js';
import { rebuildRunSnapshot } from '../../src/records/run-snapshot.js';
import { computeRunTotals } from '../../src/records/run-totals.js';
import { withCostScope } from '../../src/records/cost-scope.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from '../store/fixtures.js';
import { agentInput, execInput } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe('records through the real event store', () => {
  it('rebuild the same snapshot and totals from rows read back from SQLite', async () => {
    const store = home.openStore();
    const run = await store.createRun(newRun());
    const drafts = [
      nodeEventOf(buildExecutionRecord(agentInput({ runId: run.id }))),
      nodeEventOf(buildExecutionRecord(execInput({ runId: run.id, lifecycle: startedState(), output: undefined })), { pid: 999 }),
    ];
    await store.appendEvents(drafts.map((d) => ({ ...d, conversation_id: run.conversation_id })));
    const events = await store.listRunEvents(run.id);
    const snapshot = rebuildRunSnapshot(events);
    expect(snapshot.nodes.get('review')?.reusable).toMatchObject({ text: 'LGTM', structured: { verdict: 'pass' } });
    expect(snapshot.nodes.get('build')?.inFlight).toMatchObject({ pid: 999, attemptId: 'att-build-1' });
    expect(computeRunTotals(events)).toEqual({
      total_cost_usd: 0.25,
      total_tokens_in: 1200,
      total_tokens_out: 300,
      total_cache_read_tokens: 1000,
      total_cache_write_tokens: 50,
    });
    expect(events.map((e) => withCostScope(e).cost_scope)).toEqual(['own', undefined]);
  });
});
