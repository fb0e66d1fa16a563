import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastRunEvent, openRoom, typesAt, type Room } from '../harness/room.js';

/**
 * `approve_run` and `reject_run`: the answer to a paused run's gate, carried out by a real
 * supervisor. What the gate's attempt records as its output, whether the run goes on or ends,
 * and that an answer delivered again (or to a run not waiting) changes nothing.
 */

let room: Room;
beforeEach(async () => {
  room = await openRoom();
});
afterEach(async () => {
  await room.home.close();
});

const gateThenEcho = (approval: string) => `name: gated
description: a gate, then a node that prints what it answered
nodes:
  - id: review
    approval: ${approval}
  - id: after
    depends_on: [review]
    bash: printf "[%s]" "$review.output"
`;

async function outputOf(runId: string, nodeId: string): Promise<unknown> {
  const done = (await room.events(runId)).find((e) => e.event_type === 'node_completed' && e.step_name === nodeId);
  return done?.data.node_output;
}

describe('approve_run', () => {
  it('completes the gate as the same attempt with an empty output and the run goes on', async () => {
    const run = await room.start(gateThenEcho('{ message: "ok?" }'));
    await room.pausedAtGate(run.id);
    const job = await room.answer(run.id, 'approve_run', { comment: 'fine' });
    expect(job.result).toBe('continued');
    expect((await room.settle(run.id)).status).toBe('completed');
    const events = await room.events(run.id);
    expect(typesAt(events, 'review')).toEqual(['node_started', 'node_suspended', 'node_completed']);
    const suspended = events.find((e) => e.event_type === 'node_suspended')!;
    const completed = events.find((e) => e.event_type === 'node_completed' && e.step_name === 'review')!;
    expect(completed.data.execution.attempt.id).toBe(suspended.data.execution.attempt.id);
    expect(await outputOf(run.id, 'review')).toBe('');
    expect(await outputOf(run.id, 'after')).toBe('[]');
    expect(events.find((e) => e.event_type === 'approval_received')?.data).toMatchObject({ decision: 'approved', comment: 'fine' });
    // Paused, then straight back to running: no status in between.
    const runLevel = events.filter((e) => e.event_type.startsWith('workflow_')).map((e) => e.event_type);
    expect(runLevel).toEqual(['workflow_started', 'workflow_paused', 'workflow_resumed', 'workflow_completed']);
  });

  it('with capture_response, the comment is the gate’s output that later nodes read', async () => {
    const run = await room.start(gateThenEcho('{ message: "which?", capture_response: true }'));
    await room.pausedAtGate(run.id);
    await room.answer(run.id, 'approve_run', { comment: 'the blue one' });
    await room.settle(run.id);
    expect(await outputOf(run.id, 'review')).toBe('the blue one');
    expect(await outputOf(run.id, 'after')).toBe('[the blue one]');
  });

  it('with authored decisions, the output is {decision, text}', async () => {
    const run = await room.start(gateThenEcho('{ message: "ship?", decisions: [{ id: approve }, { id: reject }] }'));
    await room.pausedAtGate(run.id);
    await room.answer(run.id, 'approve_run', { comment: 'go' });
    await room.settle(run.id);
    expect(JSON.parse((await outputOf(run.id, 'review')) as string)).toEqual({ decision: 'approve', text: 'go' });
  });

  it('asks with its message’s references filled in from upstream outputs', async () => {
    const run = await room.start(`name: asks
description: x
nodes:
  - id: plan
    bash: printf "three steps"
  - id: review
    depends_on: [plan]
    approval: { message: "Plan: $plan.output. Go?" }
`);
    const paused = await room.pausedAtGate(run.id);
    expect(paused.metadata.approval).toMatchObject({ nodeId: 'review', message: 'Plan: three steps. Go?' });
    const asked = (await room.events(run.id)).find((e) => e.event_type === 'approval_requested');
    expect(asked?.data).toMatchObject({ message: 'Plan: three steps. Go?' });
  });

  it('delivered again after it was carried out: ignored, the gate is not answered twice', async () => {
    const held = room.held('after-gate');
    const run = await room.start(`name: twice
description: x
nodes:
  - id: review
    approval: { message: "ok?" }
  - id: after
    depends_on: [review]
    bash: "${held.bash}"
`);
    await room.pausedAtGate(run.id);
    expect((await room.answer(run.id, 'approve_run')).result).toBe('continued');
    await held.started();
    // The same answer, claimed again (its supervisor died after carrying it out).
    expect((await room.job('approve_run', run.id)).result).toBe('ignored: run is running');
    await held.release();
    await room.settle(run.id);
    expect((await room.job('approve_run', run.id)).result).toBe('ignored: run is completed');
    const events = await room.events(run.id);
    expect(events.filter((e) => e.event_type === 'approval_received')).toHaveLength(1);
    expect(typesAt(events, 'review')).toEqual(['node_started', 'node_suspended', 'node_completed']);
    expect(held.runs()).toBe(1);
  });

  it('the store refuses a second answer while the first is still open', async () => {
    const run = await room.start(gateThenEcho('{ message: "ok?" }'));
    await room.pausedAtGate(run.id);
    await room.sup.supervisor.shutdown({ drain: false });
    const first = await room.sup.store.requestGateDecision({ runId: run.id, kind: 'approve_run', payload: {} });
    const second = await room.sup.store.requestGateDecision({ runId: run.id, kind: 'reject_run', payload: {} });
    expect(first.queued).toBe(true);
    expect(second).toMatchObject({ queued: false, open: 'approve_run' });
  });
});

describe('reject_run', () => {
  it('a plain gate: its attempt fails as cancelled and the run ends cancelled with the reason', async () => {
    const run = await room.start(gateThenEcho('{ message: "ok?" }'));
    await room.pausedAtGate(run.id);
    expect((await room.answer(run.id, 'reject_run', { reason: 'not now' })).result).toBe('cancelled');
    const done = await room.settle(run.id);
    expect(done.status).toBe('cancelled');
    const events = await room.events(run.id);
    const failed = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'review')!;
    expect(failed.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'cancelled', error: 'Rejected: not now' });
    expect(typesAt(events, 'after')).toEqual([]);
    expect(lastRunEvent(events)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'not now' } });
    expect(events.find((e) => e.event_type === 'approval_received')?.data).toMatchObject({ decision: 'rejected', reason: 'not now' });
  });

  it('with authored decisions including reject: the gate completes with {decision: reject} and the run goes on', async () => {
    const run = await room.start(gateThenEcho('{ message: "ship?", decisions: [{ id: approve }, { id: reject }] }'));
    await room.pausedAtGate(run.id);
    expect((await room.answer(run.id, 'reject_run', { reason: 'needs work' })).result).toBe('continued');
    expect((await room.settle(run.id)).status).toBe('completed');
    expect(JSON.parse((await outputOf(run.id, 'review')) as string)).toEqual({ decision: 'reject', text: 'needs work' });
  });

  it('with on_reject: a rejection under max_attempts runs the rework and asks again; the run is not cancelled', async () => {
    const run = await room.start(`name: rework
description: x
nodes:
  - id: review
    approval:
      message: "ok?"
      on_reject: { bash: 'printf "redone: %s" "$REJECTION_REASON"', max_attempts: 2 }
`);
    await room.pausedAtGate(run.id);
    expect((await room.answer(run.id, 'reject_run', { reason: 'typo' })).result).toBe('continued');
    const again = await room.pausedAtGate(run.id, 2);
    expect(again.metadata.rejections).toMatchObject({ review: { count: 1, reason: 'typo' } });
    const rework = (await room.events(run.id)).find((e) => e.event_type === 'node_completed' && e.step_name === 'review/on_reject');
    expect(rework?.data.node_output).toBe('redone: typo');
    // The last allowed rejection cancels, saying why.
    expect((await room.answer(run.id, 'reject_run', { reason: 'still' })).result).toBe('cancelled');
    const events = await room.events(run.id);
    expect(lastRunEvent(events)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'max_attempts (2) exhausted' } });
  });

  it('a run that is not paused at a gate is left alone', async () => {
    const run = await room.start('name: plain\ndescription: x\nnodes:\n  - id: a\n    bash: printf a\n');
    await room.settle(run.id);
    expect((await room.job('reject_run', run.id)).result).toBe('ignored: run is completed');
    expect((await room.sup.store.getRun(run.id))?.status).toBe('completed');
  });
});
