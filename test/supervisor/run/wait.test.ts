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

it('a wait longer than the sleep threshold lets its run go and is woken by its job when the moment comes, as the same attempt', async () => {
  // A threshold of 1 s for the test: a 2.5-s wait sleeps; the claim loop's timer for the job's moment wakes it.
  const sup = await startSupervisor(home, { env: { CAIRN_WAIT_SLEEP_AFTER_MS: '1000' } });
  const run = await sup.createRun(waiting.replace('duration_ms: 2000', 'duration_ms: 2500'));
  const asleep = await waitFor(async () => {
    const row = await sup.store.getRun(run.id);
    const wake = (await sup.store.listRunJobs(run.id)).find((j) => j.kind === 'wake_run');
    return row?.owner_id === null && sup.supervisor.activeRuns === 0 && wake ? wake : undefined;
  }, { what: 'the run to sleep' });
  expect((await sup.store.getRun(run.id))?.status).toBe('running');
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');

  const events = await sup.events(run.id);
  const hold = events.filter((e) => e.step_name === 'hold');
  expect(hold.map((e) => e.event_type)).toEqual(['node_started', 'node_suspended', 'node_completed']);
  expect(hold[2]!.data.execution.attempt.id).toBe(hold[1]!.data.execution.attempt.id);
  expect(asleep.not_before).toBe(hold[1]!.data.wake_at);
  expect(await sup.store.getJob(asleep.id)).toMatchObject({ status: 'done', result: 'woken', attempts: 1 });
});

it('a wait within the sleep threshold keeps its run driven here, with no wake job', async () => {
  const sup = await startSupervisor(home);
  const run = await sup.createRun(waiting);
  expect((await sup.waitForStatus(run.id, ['completed', 'failed'])).status).toBe('completed');
  expect((await sup.store.listRunJobs(run.id)).map((j) => j.kind)).toEqual(['start_run']);
});

it('a cancel of a run waiting in memory closes the wait’s attempt as cancelled, in the run’s last transaction', async () => {
  const sup = await startSupervisor(home);
  const run = await sup.createRun(waiting.replace('duration_ms: 2000', 'duration_ms: 20000'));
  await waitFor(async () => (await sup.events(run.id)).some((e) => e.event_type === 'node_suspended'), { what: 'the wait to begin' });
  await sup.store.enqueueJob('cancel_run', run.id);
  expect((await sup.waitForStatus(run.id, ['cancelled', 'completed', 'failed'])).status).toBe('cancelled');
  const events = await sup.events(run.id);
  const hold = events.filter((e) => e.step_name === 'hold');
  expect(hold.map((e) => e.event_type)).toEqual(['node_started', 'node_suspended', 'node_failed']);
  expect(hold[2]!.data.execution.attempt.id).toBe(hold[1]!.data.execution.attempt.id);
  expect(hold[2]!.data.execution.lifecycle).toMatchObject({ failureKind: 'cancelled' });
  expect(events.at(-1)!.event_type).toBe('workflow_cancelled');
  expect((await sup.store.listRunJobs(run.id)).some((j) => j.kind === 'wake_run')).toBe(false);
});

it('a run taken over at a long wait (its supervisor gone before it let the run sleep) sleeps under the next one, until the recorded moment', async () => {
  // The first supervisor keeps the 40-s wait in memory (its threshold is 10 min), then goes away.
  const first = await startSupervisor(home, { env: { CAIRN_WAIT_SLEEP_AFTER_MS: '600000' } });
  const run = await first.createRun(waiting.replace('duration_ms: 2000', 'duration_ms: 40000'));
  await waitFor(async () => (await first.events(run.id)).some((e) => e.event_type === 'node_suspended'), { what: 'the wait to begin' });
  expect((await first.store.listRunJobs(run.id)).some((j) => j.kind === 'wake_run')).toBe(false);
  await first.stop();

  const second = await startSupervisor(home);
  const wake = await waitFor(async () => {
    const row = await second.store.getRun(run.id);
    const job = (await second.store.listRunJobs(run.id)).find((j) => j.kind === 'wake_run' && j.status === 'queued');
    return row?.owner_id === null && second.supervisor.activeRuns === 0 ? job : undefined;
  }, { what: 'the run to sleep under the second supervisor' });
  const hold = (await second.events(run.id)).filter((e) => e.step_name === 'hold');
  expect(hold.map((e) => e.event_type)).toEqual(['node_started', 'node_suspended']);
  expect(wake.not_before).toBe(hold[1]!.data.wake_at);
  expect((await second.store.getRun(run.id))?.status).toBe('running');
});
