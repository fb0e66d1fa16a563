import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const waiting = `name: waiting
description: a two-second wait, then a node
nodes:
  - id: hold
    wait: { duration_ms: 2000, message: "cooling down" }
  - id: after
    depends_on: [hold]
    bash: echo after
`;

it('a waiting node holds no slot: with a global limit of 1, another run’s node runs while it waits', async () => {
  const sup = await startSupervisor(home, { limit: 1 });
  const first = await sup.createRun(waiting);
  await waitFor(async () => (await sup.events(first.id)).some((e) => e.event_type === 'node_suspended'), { what: 'the wait to begin' });
  const second = await sup.createRun('name: other\ndescription: one node\nnodes:\n  - id: b\n    bash: echo b\n');
  expect((await sup.waitForStatus(second.id, ['completed', 'failed'])).status).toBe('completed');
  expect((await sup.waitForStatus(first.id, ['completed', 'failed'])).status).toBe('completed');

  const events = await sup.events(first.id);
  const suspended = events.find((e) => e.step_name === 'hold' && e.event_type === 'node_suspended')!;
  const woke = events.find((e) => e.step_name === 'hold' && e.event_type === 'node_completed')!;
  const other = (await sup.events(second.id)).find((e) => e.event_type === 'node_completed')!;
  // The other run's node finished while the wait was suspended, before it woke.
  expect(suspended.seq).toBeLessThan(other.seq);
  expect(other.seq).toBeLessThan(woke.seq);
  expect(suspended.data).toMatchObject({ message: 'cooling down', execution: { node: { kind: 'wait' }, lifecycle: { status: 'suspended', point: 'wait' } } });
  // It woke no earlier than the moment it recorded, as the same attempt.
  expect(Date.parse(woke.created_at)).toBeGreaterThanOrEqual(Date.parse(suspended.data.wake_at));
  expect(woke.data.execution.attempt.id).toBe(suspended.data.execution.attempt.id);
  expect(woke.data).toMatchObject({ node_output: '' });
});

it('a wait survives a supervisor restart: the next supervisor wakes it at the recorded moment, as the same attempt', async () => {
  const sup = await startSupervisor(home, { id: 'sup-one' });
  const run = await sup.createRun(waiting);
  await waitFor(async () => (await sup.events(run.id)).some((e) => e.event_type === 'node_suspended'), { what: 'the wait to begin' });
  await sup.stop();
  expect((await sup.store.getRun(run.id))?.status).toBe('running');

  const next = await startSupervisor(home, { id: 'sup-two' });
  const done = await next.waitForStatus(run.id, ['completed', 'failed']);
  expect(done.status).toBe('completed');
  const events = await next.events(run.id);
  const suspended = events.filter((e) => e.step_name === 'hold' && e.event_type === 'node_suspended');
  const woke = events.find((e) => e.step_name === 'hold' && e.event_type === 'node_completed')!;
  expect(suspended).toHaveLength(1);
  expect(woke.data.execution.attempt.id).toBe(suspended[0]!.data.execution.attempt.id);
  expect(Date.parse(woke.created_at)).toBeGreaterThanOrEqual(Date.parse(suspended[0]!.data.wake_at));
  expect(events.filter((e) => e.step_name === 'after' && e.event_type === 'node_completed')).toHaveLength(1);
});
