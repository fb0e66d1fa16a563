import { afterEach, describe, expect, it } from 'vitest';
import { startSupervisor } from '../../helpers/supervisor.js';
import { waitFor } from '../../helpers/wait-for.js';
import { lastRunEvent, openRoom, typesAt, type Room } from '../harness/room.js';

/**
 * The nodes that decide without running a program (`cancel:`, `wait:`, `approval:`), driven by
 * the scheduler a real supervisor builds: what each records, how the run ends, and what a
 * cancel or a new supervisor does to one that is waiting.
 */

let room: Room;
afterEach(async () => {
  await room.home.close();
});

describe('cancel: (halt)', () => {
  it('ends the run cancelled with its reason filled in; it completes with the reason as output, running nodes are stopped, nothing after it runs', async () => {
    room = await openRoom();
    const held = room.held('beside');
    const run = await room.start(`name: halts
description: x
nodes:
  - id: check
    bash: "while [ ! -e '${held.startedFile}' ]; do sleep 0.02; done; printf 'no tests'"
  - id: beside
    bash: "${held.bash}"
  - id: stop
    depends_on: [check]
    cancel: "stopped: $check.output"
  - id: after
    depends_on: [stop]
    bash: printf after
`);
    // check ends only once beside is running, so the halt finds it running.
    const done = await room.settle(run.id);
    expect(done.status).toBe('cancelled');
    const events = await room.events(run.id);
    expect(lastRunEvent(events)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'stopped: no tests' } });
    expect(typesAt(events, 'stop')).toEqual(['node_started', 'node_completed']);
    const stop = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'stop')!;
    expect(stop.data).toMatchObject({ node_output: 'stopped: no tests', execution: { node: { kind: 'halt' } } });
    expect(typesAt(events, 'beside')).toEqual(['node_started', 'node_failed']);
    // The node it stopped says what stopped it: this cancel: node, not a user.
    const stopped = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'beside')!;
    expect(stopped.data.execution.lifecycle).toMatchObject({ error: "Cancelled by node 'stop': stopped: no tests", failureKind: 'cancelled' });
    expect(typesAt(events, 'after').filter((t) => t === 'node_started')).toEqual([]);
  });

  it('is not reached when its condition is false: the run completes', async () => {
    room = await openRoom();
    const run = await room.start(`name: guarded
description: x
nodes:
  - id: check
    bash: printf ok
  - id: stop
    depends_on: [check]
    when: "$check.output == 'broken'"
    cancel: "broken"
  - id: after
    depends_on: [check]
    bash: printf after
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'stop')).toEqual(['node_skipped']);
    expect(typesAt(events, 'after')).toEqual(['node_started', 'node_completed']);
  });
});

describe('wait:', () => {
  it('a moment already past: completes at once with an empty output, never suspended', async () => {
    room = await openRoom();
    const run = await room.start(`name: past
description: x
nodes:
  - id: hold
    wait: { until: "2001-01-01T00:00:00Z" }
  - id: after
    depends_on: [hold]
    bash: printf after
`);
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'hold')).toEqual(['node_started', 'node_completed']);
    expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'hold')?.data.node_output).toBe('');
  });

  it('a moment read from an upstream output that is not a timestamp fails the node, saying what it got', async () => {
    room = await openRoom();
    const run = await room.start(`name: bad-until
description: x
nodes:
  - id: when
    bash: printf tomorrow
  - id: hold
    depends_on: [when]
    wait: { until: "$when.output" }
`);
    expect((await room.settle(run.id)).status).toBe('failed');
    const failed = (await room.events(run.id)).find((e) => e.event_type === 'node_failed' && e.step_name === 'hold')!;
    expect(failed.data.execution.lifecycle).toMatchObject({ failureKind: 'config' });
    expect(failed.data.execution.lifecycle.error).toMatch(/'wait.until' must be an ISO-8601 timestamp .* got 'tomorrow'/);
  });

  it('cancelled while it waits: its attempt is closed as cancelled, the same attempt, and nothing after it runs', async () => {
    room = await openRoom();
    const run = await room.start(`name: long-wait
description: x
nodes:
  - id: hold
    wait: { duration_ms: 600000, message: "ten minutes" }
  - id: after
    depends_on: [hold]
    bash: printf after
`);
    const suspended = await room.eventOf(run.id, 'node_suspended', 'hold');
    expect(suspended.data).toMatchObject({ message: 'ten minutes', execution: { lifecycle: { point: 'wait' } } });
    expect(Date.parse(suspended.data.wake_at) - Date.parse(suspended.data.execution.invocation.startedAt)).toBe(600_000);
    expect((await room.job('cancel_run', run.id)).result).toBe('cancelled');
    const events = await room.events(run.id);
    const closed = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'hold')!;
    expect(closed.data.execution.attempt.id).toBe(suspended.data.execution.attempt.id);
    expect(closed.data.execution.lifecycle).toMatchObject({ failureKind: 'cancelled' });
    expect(typesAt(events, 'after')).toEqual([]);
  });

  it('a long wait lets the run sleep (let go, a wake-up queued for the moment); a cancel then ends it at once', async () => {
    room = await openRoom({ env: { CAIRN_WAIT_SLEEP_AFTER_MS: '1000' } });
    const run = await room.start('name: sleeps\ndescription: x\nnodes:\n  - id: hold\n    wait: { duration_ms: 3600000 }\n');
    const suspended = await room.eventOf(run.id, 'node_suspended', 'hold');
    const wake = await waitFor(async () => {
      const asleep = await room.sup.store.getRun(run.id);
      const job = (await room.sup.store.listRunJobs(run.id)).find((j) => j.kind === 'wake_run' && j.status === 'queued');
      return asleep?.status === 'running' && asleep.owner_id === null && job ? job : undefined;
    }, { what: 'the run to sleep' });
    expect(wake.not_before).toBe(suspended.data.wake_at);
    expect((await room.job('cancel_run', run.id)).result).toBe('cancelled');
    const events = await room.events(run.id);
    expect(typesAt(events, 'hold')).toEqual(['node_started', 'node_suspended', 'node_failed']);
    // Its wake-up went with the run's end.
    expect((await room.sup.store.listRunJobs(run.id)).filter((j) => j.kind === 'wake_run' && j.status !== 'done')).toEqual([]);
  });
});

describe('wait: a sleeping run woken', () => {
  it('at its moment the wake_run job takes the run back and the wait completes as the same attempt', async () => {
    room = await openRoom({ env: { CAIRN_WAIT_SLEEP_AFTER_MS: '1000' } });
    const run = await room.start(`name: naps
description: x
nodes:
  - id: hold
    wait: { duration_ms: 4000 }
  - id: after
    depends_on: [hold]
    bash: printf awake
`);
    const suspended = await room.eventOf(run.id, 'node_suspended', 'hold');
    expect((await room.settle(run.id)).status).toBe('completed');
    const wake = (await room.sup.store.listRunJobs(run.id)).find((j) => j.kind === 'wake_run');
    expect(wake).toMatchObject({ status: 'done', result: 'woken', not_before: suspended.data.wake_at });
    const events = await room.events(run.id);
    const woke = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'hold')!;
    expect(woke.data.execution.attempt.id).toBe(suspended.data.execution.attempt.id);
    expect(Date.parse(woke.created_at)).toBeGreaterThanOrEqual(Date.parse(suspended.data.wake_at));
    expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'after')?.data.node_output).toBe('awake');
  });
});

describe('approval: (gate) across supervisors', () => {
  it('a run paused at a gate stays paused when its supervisor stops; answered under the next one, the same attempt completes', async () => {
    room = await openRoom({ id: 'sup-first' });
    const run = await room.start(`name: survives
description: x
nodes:
  - id: review
    approval: { message: "ok?", capture_response: true }
  - id: after
    depends_on: [review]
    bash: printf "got %s" "$review.output"
`);
    await room.pausedAtGate(run.id);
    await room.sup.stop();
    expect((await room.sup.store.getRun(run.id))?.status).toBe('paused');
    const next = await startSupervisor(room.home, { id: 'sup-second' });
    expect((await next.store.requestGateDecision({ runId: run.id, kind: 'approve_run', payload: { comment: 'yes' } })).queued).toBe(true);
    expect((await next.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
    const events = await next.events(run.id);
    const review = events.filter((e) => e.step_name === 'review' && e.event_type.startsWith('node_'));
    expect(review.map((e) => e.event_type)).toEqual(['node_started', 'node_suspended', 'node_completed']);
    expect(new Set(review.map((e) => e.data.execution.attempt.id)).size).toBe(1);
    expect(events.find((e) => e.event_type === 'node_completed' && e.step_name === 'after')?.data.node_output).toBe('got yes');
  });

  it('two gates reached together are asked one at a time: the second once the first is answered', async () => {
    room = await openRoom();
    const run = await room.start(`name: two-gates
description: x
nodes:
  - id: one
    approval: { message: "first?" }
  - id: two
    approval: { message: "second?" }
`);
    const first = await room.pausedAtGate(run.id);
    const asked = [first.metadata.approval!.nodeId];
    await room.answer(run.id, 'approve_run');
    const second = await room.pausedAtGate(run.id, 2);
    asked.push(second.metadata.approval!.nodeId);
    await room.answer(run.id, 'approve_run');
    expect((await room.settle(run.id)).status).toBe('completed');
    expect([...asked].sort()).toEqual(['one', 'two']);
    const events = await room.events(run.id);
    expect(events.filter((e) => e.event_type === 'approval_received')).toHaveLength(2);
  });
});
