import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AttemptOutcome, NodeAttempt } from '../../../src/supervisor/run/node-handler.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { ScriptedHandlers, startScheduler } from './scheduler-harness.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const three = `name: three
description: a, b independent; c after both
nodes:
  - id: a
    bash: "true"
  - id: b
    bash: "true"
  - id: c
    depends_on: [a, b]
    trigger_rule: all_done
    bash: "true"
`;

const gate = (attempt: NodeAttempt): AttemptOutcome => ({
  status: 'suspended',
  approval: { type: 'approval', nodeId: attempt.path, message: `ok ${attempt.path}?` },
});

it('running → completed only when every node is done, at least one completed and none failed', async () => {
  const { scheduler } = await startScheduler(home, three, new ScriptedHandlers(() => ({ status: 'completed', output: '' })));
  expect(await scheduler.done).toBe('completed');
});

it('running → failed when any node failed, even if every other node completed (never completed with a failure)', async () => {
  const handlers = new ScriptedHandlers((a) =>
    a.node.id === 'b' ? { status: 'failed', error: 'boom', failureKind: 'exec_failed' } : { status: 'completed', output: '' },
  );
  const { scheduler, store, run } = await startScheduler(home, three, handlers);
  expect(await scheduler.done).toBe('failed');
  expect((await store.getRun(run.id))?.error).toMatch(/completed with failures: 'b': boom/);
});

it('running → paused only once nothing else can run: the suspended gate waits for the held branch, then the run is let go', async () => {
  const handlers = new ScriptedHandlers((a) => (a.node.id === 'a' ? gate(a) : a.node.id === 'b' ? 'hold' : { status: 'completed', output: '' }));
  const { scheduler, store, run } = await startScheduler(home, three, handlers);
  await waitFor(() => handlers.held.length === 1, { what: 'b to start' });
  expect((await store.getRun(run.id))?.status).toBe('running');
  handlers.held[0]!.end({ status: 'failed', error: 'b broke', failureKind: 'exec_failed' });
  expect(await scheduler.done).toBe('paused');
  const paused = (await store.getRun(run.id))!;
  expect(paused).toMatchObject({ status: 'paused', owner_id: null, completed_at: null });
  expect(paused.metadata.approval).toMatchObject({ type: 'approval', nodeId: 'a', message: 'ok a?' });
  const events = await store.listRunEvents(run.id);
  expect(events.at(-1)).toMatchObject({ event_type: 'workflow_paused', data: { nodeId: 'a', type: 'approval' } });
  // c (all_done over a and b) waits behind the gate: it did not run.
  expect(handlers.order()).toEqual(['a', 'b']);
});

it('a halting node ends the run cancelled with its reason, stopping what else runs', async () => {
  const handlers = new ScriptedHandlers((a) => (a.node.id === 'a' ? { status: 'halted', reason: 'no plan', output: 'no plan' } : 'hold'));
  const { scheduler, store, run } = await startScheduler(home, three, handlers);
  await waitFor(() => handlers.held.length === 1, { what: 'b to start' });
  await waitFor(() => handlers.held[0]!.attempt.signal.aborted, { what: 'b to be told to stop' });
  handlers.held[0]!.end({ status: 'cancelled' });
  expect(await scheduler.done).toBe('cancelled');
  expect((await store.getRun(run.id))?.error).toBe("Workflow cancelled (node 'a'): no plan");
  expect((await store.listRunEvents(run.id)).at(-1)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'no plan' } });
});

it('a waiting node keeps the run running, holds no slot, and is continued as the same attempt when its moment comes', async () => {
  const handlers = new ScriptedHandlers((a) =>
    a.node.id === 'a' && !a.continued ? { status: 'waiting', wakeAt: Date.now() + 50 } : { status: 'completed', output: '' },
  );
  const { scheduler } = await startScheduler(home, three, handlers, { perRunLimit: 1 });
  expect(await scheduler.done).toBe('completed');
  const attemptsOfA = handlers.started.filter((s) => s.node.id === 'a');
  expect(attemptsOfA.map((s) => s.continued ?? false)).toEqual([false, true]);
  expect(attemptsOfA[1]!.identity.attempt).toEqual(attemptsOfA[0]!.identity.attempt);
  // With a per-run limit of 1, b ran while a waited.
  expect(handlers.order()).toEqual(['a', 'b', 'a', 'c']);
});
