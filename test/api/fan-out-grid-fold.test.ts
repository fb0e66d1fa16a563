import { describe, expect, it } from 'vitest';
import { FanOutGridFold } from '../../src/api/views/fan-out-grid-fold.js';
import { completedState, failedState, startedState } from '../../src/records/index.js';
import type { RunEvent } from '../../src/store/schemas/event.js';
import { agentSpendEvent, execInput, persist, recordEvent } from '../records/fixtures.js';

/**
 * An in-run fan-out `each` of three items: item 0 completed after a call that cost $0.25 inside
 * it; item 1 failed once ($0.50) and completed on its retry ($0.25); item 2 is still running.
 */
function fanOutLog(): RunEvent[] {
  const instances = ['a', 'b', 'c'].map((item, ordinal) => ({ ordinal, identity: `id-${item}`, item, inputs: {} }));
  // The instance's own rows, as the engine writes them: its start, then its end with the output.
  let attempt = 0;
  const own = (path: string, state: 'started' | 'completed' | 'failed', text = '') => {
    attempt += state === 'started' ? 1 : 0;
    return recordEvent(
      execInput({
        path,
        node: { id: path.split('/').pop()!.replace(/\[\d+\]$/, ''), kind: 'exec', runtime: 'sh' },
        invocation: { id: `inv-${path}`, startedAt: '2026-03-01T10:00:00.000Z', loopPath: [] },
        attempt: { id: `att-${path}-${attempt}`, startedAt: '2026-03-01T10:00:00.000Z' },
        lifecycle: state === 'started' ? startedState() : state === 'completed' ? completedState() : failedState('overloaded'),
        ...(state === 'started' ? { output: undefined } : { output: { text } }),
      }),
    );
  };
  return persist([
    { event_type: 'node_started', step_name: 'each', data: { execution: { node: { kind: 'compose_fan_out' } } } },
    { event_type: 'fan_out_instances', step_name: 'each', data: { instances } },
    agentSpendEvent('each[0]/ask', 0.25, { input: 10, output: 1 }),
    own('each[0]', 'started'),
    own('each[0]', 'completed', 'answer a'),
    agentSpendEvent('each[1]/ask', 0.5, undefined, { lifecycle: failedState('overloaded') }),
    own('each[1]', 'started'),
    own('each[1]', 'failed'),
    agentSpendEvent('each[1]/ask', 0.25, undefined),
    own('each[1]', 'started'),
    own('each[1]', 'completed', 'answer b'),
    // Another fan-out's instance with the same ordinal adds nothing here.
    agentSpendEvent('other[2]/ask', 9, undefined),
    own('each[2]/ask', 'started'),
  ]);
}

const summary = (fold: FanOutGridFold, running = true) =>
  fold.inRunItems(running).map((i) => ({ item: i.item, status: i.status, attempts: i.attempts, costUsd: i.costUsd, outputPreview: i.outputPreview }));

describe('the fan-out grid, folded from the run log', () => {
  it('reads each item’s status, attempts, cost and output from the rows of its instance', () => {
    const fold = new FanOutGridFold('each');
    fold.apply(fanOutLog());
    expect(fold.mode).toBe('in_run');
    expect(summary(fold)).toEqual([
      { item: 'a', status: 'completed', attempts: 1, costUsd: 0.25, outputPreview: 'answer a' },
      { item: 'b', status: 'completed', attempts: 2, costUsd: 0.75, outputPreview: 'answer b' },
      { item: 'c', status: 'running', attempts: 0, costUsd: null, outputPreview: null },
    ]);
    // A run nobody drives has no running item: what began inside an instance is pending again.
    expect(summary(fold, false)[2]!.status).toBe('pending');
  });

  it('gives the same grid however the log is split between requests, and counts nothing twice when requests overlap', () => {
    const log = fanOutLog();
    const whole = new FanOutGridFold('each');
    whole.apply(log);
    for (let cut = 0; cut <= log.length; cut++) {
      const fold = new FanOutGridFold('each');
      fold.apply(log.slice(0, cut));
      // A second request read from the same point before the first applied what it read.
      fold.apply(log.slice(0, cut));
      fold.apply(log.slice(Math.max(0, cut - 2)));
      expect(fold.inRunItems(true)).toEqual(whole.inRunItems(true));
      expect(fold.lastSeq).toBe(log.at(-1)!.seq);
    }
  });

  it('shows an abandoned or cancelled run’s unfinished items cancelled, not pending: they never run again', () => {
    const fold = new FanOutGridFold('each');
    fold.apply(fanOutLog());
    const statuses = (running: boolean, cancelled: boolean) => fold.inRunItems(running, cancelled).map((i) => i.status);
    expect(statuses(false, false)).toEqual(['completed', 'completed', 'pending']);
    expect(statuses(false, true)).toEqual(['completed', 'completed', 'cancelled']);
    // An item whose attempt the cancel stopped says cancelled too, not failed.
    const stopped = recordEvent(
      execInput({
        path: 'each[2]',
        node: { id: 'each', kind: 'exec', runtime: 'sh' },
        invocation: { id: 'inv-each[2]', startedAt: '2026-03-01T10:00:00.000Z', loopPath: [] },
        attempt: { id: 'att-each[2]', startedAt: '2026-03-01T10:00:00.000Z' },
        lifecycle: failedState('Cancelled by user', { failureKind: 'cancelled', retryable: false }),
        output: { text: '' },
      }),
    );
    fold.apply(persist([stopped], fold.lastSeq + 1));
    expect(statuses(false, false)).toEqual(['completed', 'completed', 'cancelled']);
    expect(statuses(false, true)).toEqual(['completed', 'completed', 'cancelled']);
  });

  it('has no mode and no items before the node started', () => {
    const fold = new FanOutGridFold('each');
    fold.apply(fanOutLog().filter((e) => e.step_name !== 'each'));
    expect(fold.mode).toBeNull();
    expect(fold.inRunItems(true)).toEqual([]);
  });
});
