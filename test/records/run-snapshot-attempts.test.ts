import { describe, expect, it } from 'vitest';
import { CairnError } from '../../src/shared/errors.js';
import { failedState, startedState, suspendedState, triggerRuleSkip } from '../../src/records/lifecycle.js';
import { listInFlightNodes, rebuildRunSnapshot } from '../../src/records/run-snapshot.js';
import { agentInput, execInput, persist, recordEvent, RUN_ID, T0, T1 } from './fixtures.js';

const attempt = (n: number) => ({ id: `att-build-${n}`, startedAt: n === 1 ? T0 : T1 });
const checkout = { kind: 'git', sampledAt: T0, commit: 'abc', tree: 'def', worktree: { status: 'clean' } } as const;
const invocation = { id: 'inv-build-1', startedAt: T0, loopPath: [], checkoutStart: checkout };

describe('resume snapshot: lifecycle and attempts', () => {
  it('rebuilds a retried node: both attempts counted, the latest state kept', () => {
    const events = persist([
      recordEvent(execInput({ invocation, attempt: attempt(1), lifecycle: startedState(), output: undefined }), { pid: 100 }),
      recordEvent(execInput({ invocation, attempt: attempt(1), lifecycle: failedState('exit 1', { failureKind: 'exec_failed' }), output: undefined })),
      recordEvent(execInput({ invocation, attempt: attempt(2), lifecycle: startedState(), output: undefined }), { pid: 101 }),
      recordEvent(execInput({ invocation, attempt: attempt(2) })),
    ]);
    const node = rebuildRunSnapshot(events).nodes.get('build')!;
    expect(node).toMatchObject({ status: 'completed', lifecycle: { status: 'completed' }, attemptsStarted: 2, invocationOpen: false });
    expect(node.invocation).toEqual(invocation);
    expect(node.inFlight).toBeUndefined();
    expect(node.node).toEqual({ id: 'build', kind: 'exec', runtime: 'sh' });
  });

  it('reports an attempt that started and never finished, with its process group id', () => {
    const events = persist([
      recordEvent(execInput({ invocation, attempt: attempt(1), lifecycle: startedState(), output: undefined }), { pid: 100 }),
      recordEvent(execInput({ invocation, attempt: attempt(1), lifecycle: failedState('interrupted', { failureKind: 'transient' }), output: undefined })),
      recordEvent(execInput({ invocation, attempt: attempt(2), lifecycle: startedState(), output: undefined }), { pid: 4242 }),
    ]);
    const snapshot = rebuildRunSnapshot(events);
    const node = snapshot.nodes.get('build')!;
    expect(node.inFlight).toMatchObject({ seq: 3, attemptId: 'att-build-2', startedAt: T1, pid: 4242 });
    // What the record closing it keeps of its start (an exec attempt: no binding, spend not applicable).
    expect(node.inFlight?.started).toMatchObject({ binding: {}, spend: (events[2]!.data.execution as { spend: unknown }).spend });
    expect(node).toMatchObject({ status: 'started', invocationOpen: true, attemptsStarted: 2 });
    expect(node.invocation?.checkoutStart).toEqual(checkout);
    expect(listInFlightNodes(snapshot).map((n) => n.path)).toEqual(['build']);
  });

  it('rebuilds a failure with its error, retryability and typed failure', () => {
    const providerFailure = { class: 'rate_limited' as const, retryAfterMs: 30_000, evidence: '429' };
    const lifecycle = failedState('rate limited', { retryable: false, failureKind: 'rate_limited', providerFailure });
    const node = rebuildRunSnapshot(persist([recordEvent(agentInput({ lifecycle, output: undefined }))])).nodes.get('review')!;
    expect(node.lifecycle).toEqual(lifecycle);
    expect(node.invocationOpen).toBe(true);
  });

  it('rebuilds skips and suspensions', () => {
    const snapshot = rebuildRunSnapshot(
      persist([
        recordEvent(execInput({ lifecycle: triggerRuleSkip('failed', 'setup'), output: undefined })),
        recordEvent(agentInput({ lifecycle: suspendedState('approval'), output: undefined })),
      ]),
    );
    expect(snapshot.nodes.get('build')?.lifecycle).toEqual({ status: 'skipped', reason: 'trigger_rule', cause: { kind: 'upstream_failed', origin: 'setup' } });
    expect(snapshot.nodes.get('review')).toMatchObject({ lifecycle: { status: 'suspended', point: 'approval' }, invocationOpen: true });
    expect(snapshot.nodes.get('review')?.inFlight).toBeUndefined();
  });

  it('counts attempts per invocation: a new invocation starts counting again', () => {
    const second = { id: 'inv-build-2', startedAt: T1, loopPath: [{ groupId: 'fix', iteration: 2 }] };
    const first = { id: 'inv-build-1', startedAt: T0, loopPath: [{ groupId: 'fix', iteration: 1 }] };
    const at = { path: 'fix/build' };
    const events = persist([
      recordEvent(execInput({ ...at, invocation: first, attempt: attempt(1), lifecycle: startedState(), output: undefined })),
      recordEvent(execInput({ ...at, invocation: first, attempt: attempt(1) })),
      recordEvent(execInput({ ...at, invocation: second, attempt: { id: 'att-x', startedAt: T1 }, lifecycle: startedState(), output: undefined })),
    ]);
    const node = rebuildRunSnapshot(events).nodes.get('fix/build')!;
    expect(node.invocation).toEqual(second);
    expect(node.attemptsStarted).toBe(1);
  });

  it('reads older rows without execution metadata from their flat keys', () => {
    const events = persist([
      { event_type: 'node_started', step_name: 'a', data: { type: 'bash', pid: 77 } },
      { event_type: 'node_failed', step_name: 'a', data: { error: 'exit 2', type: 'bash' } },
      { event_type: 'node_started', step_name: 'a', data: { type: 'bash' } },
      { event_type: 'node_completed', step_name: 'a', data: { node_output: 'ok', duration_ms: 5 } },
      { event_type: 'node_skipped', step_name: 'b', data: { reason: 'when_condition', expr: "$a.output == 'x'" } },
      { event_type: 'node_skipped', step_name: 'c', data: { reason: 'trigger_rule' } },
      { event_type: 'node_failed', step_name: 'd', data: { error: 'boom', retryable: false, failure_kind: 'fatal' } },
      { event_type: 'node_started', step_name: 'e', data: { command: 'plan', provider: 'claude' } },
    ]);
    const nodes = rebuildRunSnapshot(events).nodes;
    expect(nodes.get('a')).toMatchObject({ status: 'completed', attemptsStarted: 2, reusable: { text: 'ok' } });
    expect(nodes.get('a')?.invocation).toBeUndefined();
    expect(nodes.get('b')?.lifecycle).toEqual({ status: 'skipped', reason: 'when_condition', cause: { kind: 'condition', expr: "$a.output == 'x'" } });
    expect(nodes.get('c')).toMatchObject({ status: 'skipped' });
    expect(nodes.get('c')?.lifecycle).toBeUndefined();
    expect(nodes.get('d')?.lifecycle).toEqual({ status: 'failed', error: 'boom', retryable: false, failureKind: 'fatal' });
    expect(nodes.get('e')?.inFlight).toEqual({ seq: 8 });
  });

  it('ignores run-level and non-node events', () => {
    const events = persist([
      { event_type: 'workflow_started', step_name: null, data: {} },
      { event_type: 'loop_iteration_started', step_name: 'fix', data: { iteration: 1 } },
      { event_type: 'approval_requested', step_name: 'gate', data: { message: 'ok?' } },
    ]);
    expect(rebuildRunSnapshot(events).nodes.size).toBe(0);
  });
});

describe('resume snapshot: rows with modern metadata must be complete', () => {
  const completed = () => persist([recordEvent(execInput())])[0]!;

  it('refuses a record missing a required group, naming the row', () => {
    const event = completed();
    delete (event.data.execution as Record<string, unknown>).spend;
    const err = (() => {
      try {
        rebuildRunSnapshot([event]);
      } catch (e) {
        return e as CairnError;
      }
    })();
    expect(err).toBeInstanceOf(CairnError);
    expect(err?.message).toContain("event 1 ('node_completed' for 'build')");
    expect(err?.message).toContain('spend');
  });

  it('refuses a record whose lifecycle contradicts its event type', () => {
    const event = { ...completed(), event_type: 'node_failed' };
    expect(() => rebuildRunSnapshot([event])).toThrow(/does not match event type/);
  });

  it('refuses a record that names another run or path', () => {
    expect(() => rebuildRunSnapshot([{ ...completed(), step_name: 'other' }])).toThrow(/names path 'build'/);
    expect(() => rebuildRunSnapshot([{ ...completed(), run_id: 'run-2' }])).toThrow(new RegExp(`names run '${RUN_ID}'`));
  });

  it('reads a record carrying keys a newer version added', () => {
    const event = completed();
    const execution = event.data.execution as Record<string, any>;
    execution.retention = { days: 30 };
    execution.spend.tokens.estimatedBy = 'nobody';
    expect(rebuildRunSnapshot([event]).nodes.get('build')?.status).toBe('completed');
  });
});
