import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSupervisor, type SupervisorHarness } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

let home: TempHome;
let sup: SupervisorHarness;
beforeEach(async () => {
  home = await makeTempHome();
  sup = await startSupervisor(home);
});
afterEach(async () => {
  await home.close();
});

/** Answers the gate as the API does (the same store operation), and expects it queued. */
async function answer(runId: string, kind: 'approve_run' | 'reject_run', payload: Record<string, unknown> = {}) {
  const queued = await sup.store.requestGateDecision({ runId, kind, payload });
  expect(queued.queued).toBe(true);
}

it('on_reject rework: each rejection runs the rework with the reason, asks again, and the last allowed rejection cancels', async () => {
  const run = await sup.createRun(`name: rework
description: a gate that reworks on reject
nodes:
  - id: review
    approval:
      message: "Good?"
      on_reject:
        bash: 'printf "%s|" "$REJECTION_REASON" >> reworks.txt; printf reworked'
        max_attempts: 3
`, { workingPath: home.home });
  const hostile = `it's "wrong" $(touch pwned) \`id\`\nline two`;
  await waitForGate(run.id, 1);
  await answer(run.id, 'reject_run', { reason: hostile });
  // Paused again only after the rework ran.
  await waitForGate(run.id, 2);
  expect((await sup.events(run.id)).filter((e) => e.step_name === 'review/on_reject')).toHaveLength(2);
  // It asks again about the reworked text, not with the old message alone.
  const asked = (await sup.store.getRun(run.id))!.metadata.approval!.message;
  expect(asked).toBe(`Good?\n\nReworked after the rejection "${hostile}":\nreworked`);
  const requests = (await sup.events(run.id)).filter((e) => e.event_type === 'approval_requested');
  expect(requests.map((e) => (e.data as { message: string }).message)).toEqual(['Good?', asked]);
  await answer(run.id, 'reject_run', { reason: 'second' });
  await waitForGate(run.id, 3);
  await answer(run.id, 'reject_run', { reason: 'third' });
  const done = await sup.waitForStatus(run.id, ['cancelled', 'completed', 'failed']);
  expect(done.status).toBe('cancelled');
  const events = await sup.events(run.id);
  const reworks = events.filter((e) => e.event_type === 'node_completed' && e.step_name === 'review/on_reject');
  expect(reworks).toHaveLength(2);
  expect(reworks[0]!.data.execution).toMatchObject({ path: 'review/on_reject', node: { id: 'on_reject', kind: 'exec' } });
  const { readFile } = await import('node:fs/promises');
  const { existsSync } = await import('node:fs');
  // The reason reached the shell as data, never as code.
  expect(await readFile(`${home.home}/reworks.txt`, 'utf8')).toBe(`${hostile}|second|`);
  expect(existsSync(`${home.home}/pwned`)).toBe(false);
  expect(events.at(-1)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'max_attempts (3) exhausted' } });
  const gateEnd = events.find((e) => e.event_type === 'node_failed' && e.step_name === 'review');
  expect(gateEnd?.data.execution.lifecycle).toMatchObject({ status: 'failed', failureKind: 'cancelled', error: 'Rejected: third' });
});

/** Waits until the run is paused at an unanswered gate for the n-th time. */
async function waitForGate(runId: string, n: number) {
  const { waitFor } = await import('../../helpers/wait-for.js');
  await waitFor(async () => {
    const run = await sup.store.getRun(runId);
    if (run?.status !== 'paused' || run.metadata.approval?.resolved) return false;
    return (await sup.events(runId)).filter((e) => e.event_type === 'workflow_paused').length === n;
  }, { what: `pause number ${n}` });
}

it('authored decisions: reject completes the gate with {decision, text} and when: edges pick the branch', async () => {
  const yaml = `name: decide
description: authored decisions
nodes:
  - id: review
    approval:
      message: "Ship it?"
      decisions: [{ id: approve }, { id: reject, label: "Not yet" }]
  - id: ship
    depends_on: [review]
    when: "$review.output.decision == 'approve'"
    bash: echo shipping
  - id: hold
    depends_on: [review]
    when: "$review.output.decision == 'reject'"
    bash: 'printf "held: %s" "$review.output.text"'
`;
  const rejected = await sup.createRun(yaml);
  await sup.waitForStatus(rejected.id, ['paused']);
  await answer(rejected.id, 'reject_run', { reason: 'needs tests' });
  expect((await sup.waitForStatus(rejected.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
  let events = await sup.events(rejected.id);
  expect(events.find((e) => e.step_name === 'review' && e.event_type === 'node_completed')?.data).toMatchObject({
    node_output: '{"decision":"reject","text":"needs tests"}',
    approval_decision: 'reject',
  });
  expect(events.find((e) => e.step_name === 'hold' && e.event_type === 'node_completed')?.data.node_output).toBe('held: needs tests');
  expect(events.find((e) => e.step_name === 'ship')?.event_type).toBe('node_skipped');

  const approved = await sup.createRun(yaml);
  await sup.waitForStatus(approved.id, ['paused']);
  await answer(approved.id, 'approve_run', { comment: 'go' });
  expect((await sup.waitForStatus(approved.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
  events = await sup.events(approved.id);
  expect(events.find((e) => e.step_name === 'ship' && e.event_type === 'node_completed')?.data.node_output).toBe('shipping');
  expect(events.find((e) => e.step_name === 'hold')?.event_type).toBe('node_skipped');
});

it('independent branches finish before the run pauses, and two gates are asked one after the other', async () => {
  const run = await sup.createRun(`name: two-gates
description: two gates and a side branch
nodes:
  - id: g1
    approval: { message: "first?", capture_response: true }
  - id: g2
    approval: { message: "second?", capture_response: true }
  - id: side
    bash: echo side
  - id: join
    depends_on: [g1, g2]
    bash: 'printf "%s+%s" "$g1.output" "$g2.output"'
`);
  const first = await sup.waitForStatus(run.id, ['paused']);
  const events = await sup.events(run.id);
  expect(events.find((e) => e.step_name === 'side' && e.event_type === 'node_completed')).toBeDefined();
  const asked = first.metadata.approval!.nodeId;
  await answer(run.id, 'approve_run', { comment: asked });
  const { waitFor } = await import('../../helpers/wait-for.js');
  const second = await waitFor(async () => {
    const r = await sup.store.getRun(run.id);
    return r?.status === 'paused' && r.metadata.approval?.nodeId !== asked && !r.metadata.approval?.resolved ? r : undefined;
  }, { what: 'the second gate' });
  const other = second.metadata.approval!.nodeId;
  await answer(run.id, 'approve_run', { comment: other });
  expect((await sup.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
  const all = await sup.events(run.id);
  expect(all.find((e) => e.step_name === 'join' && e.event_type === 'node_completed')?.data.node_output).toBe('g1+g2');
});

it('a cancel node ends the run cancelled with its reason; nodes after it never run', async () => {
  const run = await sup.createRun(`name: halt
description: stop when the plan is empty
nodes:
  - id: plan
    bash: "true"
  - id: stop-if-empty
    depends_on: [plan]
    when: "$plan.output == ''"
    cancel: "Planner produced nothing"
  - id: build
    depends_on: [stop-if-empty]
    bash: echo never
`);
  const done = await sup.waitForStatus(run.id, ['cancelled', 'completed', 'failed']);
  expect(done.status).toBe('cancelled');
  expect(done.error).toBe("Workflow cancelled (node 'stop-if-empty'): Planner produced nothing");
  const events = await sup.events(run.id);
  expect(events.find((e) => e.step_name === 'stop-if-empty' && e.event_type === 'node_completed')?.data.execution).toMatchObject({
    node: { id: 'stop-if-empty', kind: 'halt' },
    lifecycle: { status: 'completed' },
  });
  expect(events.some((e) => e.step_name === 'build')).toBe(false);
  expect(events.at(-1)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'Planner produced nothing' } });
});

it('runs the documented shell-review example: reject with a reason redrafts, approve publishes the redraft', async () => {
  const { readFile } = await import('node:fs/promises');
  const yaml = await readFile(new URL('../../fixtures/workflows/examples/workflows/shell-review.yaml', import.meta.url), 'utf8');
  const run = await sup.createRun(yaml, { workingPath: home.home });
  await waitForGate(run.id, 1);
  expect((await sup.store.getRun(run.id))?.metadata.approval?.message).toBe('Publish this draft? draft 1');
  await answer(run.id, 'reject_run', { reason: 'shorter' });
  await waitForGate(run.id, 2);
  await answer(run.id, 'approve_run', { comment: 'lgtm' });
  expect((await sup.waitForStatus(run.id, ['completed', 'failed', 'cancelled'])).status).toBe('completed');
  const events = await sup.events(run.id);
  expect(events.find((e) => e.step_name === 'publish' && e.event_type === 'node_completed')?.data.node_output).toBe('redraft: shorter\nnote: lgtm');
});
