import { expect, it } from 'vitest';
import { counterText, FanOutCounters } from '../../src/cli/fan-out-counter.js';
import { createStyle } from '../../src/terminal/format.js';
import type { StreamPayload } from '../../src/wire/stream-frames.js';

const base = { runId: 'r', conversationId: 'c', seq: 1, timestamp: 0 };
const snapshot = (total: number): StreamPayload =>
  ({ ...base, type: 'workflow_event', eventType: 'fan_out_instances', stepName: 'each', data: { instances: Array.from({ length: total }, () => ({})) } }) as StreamPayload;
const node = (nodeId: string, status: 'running' | 'completed' | 'failed', extra: Record<string, unknown> = {}): StreamPayload =>
  ({ ...base, type: 'dag_node', eventType: 'node_x', nodeId, name: nodeId, status, ...extra }) as StreamPayload;

it('formats the counter as the issue shows it', () => {
  expect(counterText({ total: 1000, completed: 405, failed: 7, running: 8 })).toBe('items 412/1000 ✓ 405 ✗ 7 ⏳ 8');
});

it('rewrites one line on a terminal, counting instances and swallowing their nodes\' frames; an interrupted attempt is not a failure', () => {
  let written = '';
  const counters = new FanOutCounters({ out: { isTTY: true, write: (c: string) => (written += c) }, style: createStyle(false) });
  expect(counters.consume(snapshot(2))).toBe(true);
  expect(counters.consume(node('each[0]', 'running'))).toBe(true);
  expect(counters.consume(node('each[0]/work', 'running'))).toBe(true);
  expect(counters.consume(node('each[1]', 'running'))).toBe(true);
  expect(counters.consume(node('each[1]', 'failed', { interrupted: true }))).toBe(true);
  expect(counters.consume(node('each[0]', 'completed'))).toBe(true);
  expect(counters.consume(node('each[1]', 'running'))).toBe(true);
  expect(counters.consume(node('each[1]', 'failed'))).toBe(true);
  // Other nodes (and a node merely named like an instance of an unknown fan-out) are not its.
  expect(counters.consume(node('other', 'running'))).toBe(false);
  expect(counters.consume(node('x[0]', 'running'))).toBe(false);
  const shown = written.split('\r\x1b[K');
  expect(shown[0]).toBe('fan-out  each items 0/2 ✓ 0 ✗ 0 ⏳ 1');
  expect(shown.at(-1)).toBe('fan-out  each items 2/2 ✓ 1 ✗ 1 ⏳ 0\n');
  expect(written.split('\n')).toHaveLength(2);
});

it('prints at each tenth of the items off a terminal', () => {
  const lines: string[] = [];
  const counters = new FanOutCounters({ out: { write: (c: string) => lines.push(c) }, style: createStyle(false) });
  counters.consume(snapshot(100));
  for (let i = 0; i < 100; i++) {
    counters.consume(node(`each[${i}]`, 'running'));
    counters.consume(node(`each[${i}]`, 'completed'));
  }
  expect(lines).toHaveLength(11);
  expect(lines.at(-1)).toBe('fan-out  each items 100/100 ✓ 100 ✗ 0 ⏳ 0\n');
});
