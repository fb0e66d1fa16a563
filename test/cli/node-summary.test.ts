import { describe, expect, it } from 'vitest';
import { describeNodeDetail, describeToolCalls, summariseNodes } from '../../src/cli/node-summary.js';
import { attemptEndedEvent, type AttemptRef } from '../../src/records/attempt-events.js';
import { cancelledFailure } from '../../src/worker/cancel-reason.js';

const at = '2025-01-01T00:00:00.000Z';
const event = (event_type: string, step_name: string | null, data: Record<string, unknown> = {}) => ({
  event_type,
  step_name,
  data,
  created_at: at,
});

describe('per-node summary of a run', () => {
  it('counts the tool calls of a node\'s latest attempt, and of their results those failed or refused', () => {
    const call = (node: string) => event('tool_called', node, { tool_name: 'Read', input: '{}' });
    const result = (node: string, data: Record<string, unknown> = {}) => event('tool_completed', node, { tool_name: 'Read', output: '', ...data });
    const nodes = summariseNodes([
      event('node_started', 'retried'),
      call('retried'),
      result('retried', { is_error: true }),
      event('node_failed', 'retried', { error: 'boom' }),
      event('node_started', 'retried'),
      call('retried'),
      result('retried'),
      event('node_completed', 'retried'),
      event('node_started', 'look'),
      call('look'),
      result('look'),
      call('look'),
      result('look', { is_error: true }),
      call('look'),
      result('look', { is_error: true, refused: true }),
      event('node_completed', 'look'),
      event('node_started', 'plain'),
      event('node_completed', 'plain'),
    ]);
    expect(nodes.map((n) => [n.node, describeToolCalls(n.tools)])).toEqual([
      ['retried', '1 tool call'],
      ['look', '3 tool calls (1 failed, 1 refused)'],
      ['plain', ''],
    ]);
  });

  it('shows a node suspended at a gate or a wait with what it waits for', () => {
    const nodes = summariseNodes([
      event('node_started', 'review'),
      event('node_suspended', 'review', { suspend_point: 'approval' }),
      event('node_started', 'hold'),
      event('node_suspended', 'hold', { suspend_point: 'wait', wake_at: '2030-01-01T09:00:00.000Z' }),
    ]);
    expect(nodes).toEqual([
      { node: 'review', status: 'suspended', reason: 'waiting for approval (cairn run approve|reject)' },
      { node: 'hold', status: 'suspended', reason: 'waiting until 2030-01-01T09:00:00.000Z' },
    ]);
  });

  it('shows each node once, in order of appearance, with its last status, duration, error or reason', () => {
    const nodes = summariseNodes([
      event('workflow_started', null),
      event('node_started', 'a'),
      event('node_started', 'c'),
      event('node_failed', 'a', { error: 'exit code 1: boom', duration_ms: 12 }),
      event('node_skipped', 'b', { reason: 'trigger_rule' }),
      event('node_completed', 'c', { duration_ms: 1500, node_output: 'hi' }),
      event('workflow_failed', null, { error: 'x' }),
    ]);
    expect(nodes).toEqual([
      { node: 'a', status: 'failed', durationMs: 12, error: 'exit code 1: boom' },
      { node: 'c', status: 'completed', durationMs: 1500 },
      { node: 'b', status: 'skipped', reason: 'trigger_rule' },
    ]);
  });

  it('shows the latest attempt of a node that ran again', () => {
    const nodes = summariseNodes([
      event('node_started', 'a'),
      event('node_failed', 'a', { error: 'interrupted', duration_ms: 5 }),
      event('node_started', 'a'),
      event('node_completed', 'a', { duration_ms: 7 }),
    ]);
    expect(nodes).toEqual([{ node: 'a', status: 'completed', durationMs: 7 }]);
  });

  it('marks nodes a resume skipped because they had already succeeded', () => {
    expect(summariseNodes([event('node_skipped_prior_success', 'a', { reason: 'prior_success' })])).toEqual([
      { node: 'a', status: 'cached', reason: 'prior_success' },
    ]);
  });

  it('tells a cancelled attempt and an interrupted one from a failure, as their writers record them', () => {
    const nodes = summariseNodes([
      ended('a', { status: 'failed', ...cancelledFailure('cancelled') }),
      ended('b', { status: 'failed', ...cancelledFailure('shutdown') }),
      ended('c', { status: 'failed', error: 'exit code 1', failureKind: 'exec_failed' }),
    ]);
    expect(nodes.map((n) => [n.node, n.status, n.error])).toEqual([
      ['a', 'cancelled', 'Cancelled by user'],
      ['b', 'interrupted', 'Interrupted by server shutdown; the node will run again when the run continues'],
      ['c', 'failed', 'exit code 1'],
    ]);
  });

  it('counts the interrupted attempts of a node that ran again, and says so', () => {
    const interrupted = () => ended('a', { status: 'failed', ...cancelledFailure('shutdown') });
    const nodes = summariseNodes([
      event('node_started', 'a'),
      interrupted(),
      event('node_started', 'a'),
      interrupted(),
      event('node_started', 'a'),
      ended('a', { status: 'completed', output: { text: 'ok' } }),
    ]);
    expect(nodes).toEqual([{ node: 'a', status: 'completed', durationMs: 3, interruptions: 2 }]);
    expect(describeNodeDetail(nodes[0]!)).toBe('ran again after 2 interrupted attempts');
    const failedAfter = summariseNodes([interrupted(), event('node_failed', 'a', { error: 'exit code 2' })]);
    expect(describeNodeDetail(failedAfter[0]!)).toBe('ran again after 1 interrupted attempt; exit code 2');
  });

  it('shows a node waiting in line with its place, global or its provider’s, until it starts or its run stops', () => {
    const nodes = summariseNodes([
      event('global_queued', 'build', { node_id: 'build', position: 3, limit: 2 }),
      event('global_queued', 'build', { node_id: 'build', position: 1, limit: 2 }),
      event('provider_queued', 'ask', { node_id: 'ask', provider: 'anthropic', position: 2, limit: 1 }),
      event('global_queued', 'lint', { node_id: 'lint', position: 2, limit: 2 }),
      event('node_started', 'lint'),
      event('node_completed', 'lint'),
    ]);
    expect(nodes).toEqual([
      { node: 'build', status: 'queued', reason: 'queued (global limit, position 1)' },
      { node: 'ask', status: 'queued', reason: 'queued (provider anthropic, position 2)' },
      { node: 'lint', status: 'completed' },
    ]);
    // Cancelled while they waited: they left the line unrun. A retry that waited again shows its failure.
    const left = summariseNodes([
      event('global_queued', 'build', { node_id: 'build', position: 1, limit: 2 }),
      event('node_started', 'flaky'),
      event('node_failed', 'flaky', { error: 'boom' }),
      event('global_queued', 'flaky', { node_id: 'flaky', position: 2, limit: 2 }),
      event('workflow_cancelled', null, { reason: 'Cancelled by user' }),
    ]);
    expect(left).toEqual([{ node: 'flaky', status: 'failed', error: 'boom' }]);
  });
});

/** A terminal attempt event of exec node `node`, built by the factory every writer uses. */
function ended(node: string, ending: Parameters<typeof attemptEndedEvent>[1]) {
  const ref: AttemptRef = {
    runId: 'run-1',
    conversationId: 'conv-1',
    path: node,
    node: { id: node, kind: 'exec', runtime: 'sh' },
    invocation: { id: `inv-${node}`, startedAt: at, loopPath: [] },
    attemptId: `att-${node}`,
    startedAt: at,
  };
  return { ...attemptEndedEvent(ref, ending, 3), created_at: at };
}

