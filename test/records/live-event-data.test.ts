import { describe, expect, it } from 'vitest';
import { buildCacheRecord, buildExecutionRecord, toPublicMetadata } from '../../src/records/build-record.js';
import { cacheEventOf, nodeEventOf } from '../../src/records/event-data.js';
import { suspendedState } from '../../src/records/lifecycle.js';
import { liveNodeEventData } from '../../src/records/live-event-data.js';
import { agentInput, RUN_ID } from './fixtures.js';

// Contract, Where facts are exposed: the live emitter sends "shared metadata, excluding output,
// diagnostics, full session id".
describe('a node record as the live stream sends it', () => {
  it('keeps the public metadata and the record flat keys, and leaves out output, diagnostics and session id', () => {
    const record = buildExecutionRecord(
      agentInput({ lifecycle: suspendedState('interactive_loop'), diagnostics: { iteration: 2, maxIterations: 5, command: 'loop-cmd' } }),
    );
    const event = nodeEventOf(record);
    const live = liveNodeEventData({ ...event.data, message: 'What next?' });
    expect(live.execution).toEqual(toPublicMetadata(record));
    expect(live).toMatchObject({ suspend_point: 'interactive_loop', message: 'What next?', provider: 'claude', cost_usd: 0.25 });
    // The diagnostic `command` had overwritten the agent's command name in the row; live, the record's own comes back.
    expect(live.command).toBe('review-pr');
    const text = JSON.stringify(live);
    for (const hidden of ['a1b2c3d4-0000-4000-8000-000000000000', 'LGTM', 'verdict', '"iteration"', 'maxIterations', 'diagnostics', 'loop-cmd']) {
      expect(text).not.toContain(hidden);
    }
  });

  it('keeps a cache decision without the prior output', () => {
    const node = { id: 'build', kind: 'exec' as const, runtime: 'sh' as const };
    const record = buildCacheRecord({ runId: RUN_ID, path: 'build', node, cache: { action: 'invalidated', prior: { text: 'old secret output' }, invalidatingDeps: ['setup'] } });
    const live = liveNodeEventData(cacheEventOf(record).data);
    expect(live).toEqual({
      reason: 'stale_dependency',
      invalidating_deps: ['setup'],
      execution: { runId: RUN_ID, path: 'build', node, cache: { action: 'invalidated', invalidatingDeps: ['setup'] } },
    });
  });

  it('strips the output keys of a legacy row with no record', () => {
    expect(liveNodeEventData({ type: 'bash', node_output: 'x', node_output_truncated: true, session_id: 's', suspend_point: 'approval' })).toEqual({
      type: 'bash',
      suspend_point: 'approval',
    });
  });
});
