import { describe, expect, it } from 'vitest';
import { summariseNodes } from '../../src/cli/node-summary.js';

const at = '2025-01-01T00:00:00.000Z';
const event = (event_type: string, step_name: string | null, data: Record<string, unknown> = {}) => ({
  event_type,
  step_name,
  data,
  created_at: at,
});

describe('per-node summary of a run', () => {
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
});
