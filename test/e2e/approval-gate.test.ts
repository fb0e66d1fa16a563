import { writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let server: RunningServer;
async function openServer(): Promise<void> {
  home = await makeTempHome();
  server = await startServer(home);
}

/** The gated workflow under `name` (each test that shares a server runs one of its own name). */
const gated = (name: string, capture: boolean) => `name: ${name}
description: plan, a person approves, then the work
nodes:
  - id: plan
    bash: echo the plan
  - id: review
    depends_on: [plan]
    approval:
      message: "Approve this plan? $plan.output"
      capture_response: ${capture}
  - id: work
    depends_on: [review]
    bash: 'printf "%s" "approved with: $review.output"'
`;

function post(runId: string, op: string, body?: string, contentType = 'application/json'): Promise<Response> {
  return fetch(`${server.url}/api/workflows/runs/${runId}/${op}`, {
    method: 'POST',
    ...(body !== undefined ? { body, headers: { 'content-type': contentType } } : {}),
  });
}

async function waitForStatus(runId: string, statuses: string[]) {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}` });
}

// Each test writes a workflow of its own name and answers the gates of its own runs: one server
// serves them all.
describe('on one server', () => {
  beforeAll(openServer);
  afterAll(() => home.close());

  it('§12 row 21: a run paused at a gate refuses a body that is not JSON, then approves with a comment and completes', async () => {
    await writeHomeWorkflow(home, 'gated', gated('gated', true));
    const { runId } = await startRun(server.url, 'gated');
    const paused = await waitForStatus(runId, ['paused', 'completed', 'failed']);
    expect(paused.run.status).toBe('paused');
    expect(paused.events.find((e) => e.event_type === 'approval_requested')).toMatchObject({
      step_name: 'review',
      data: { message: 'Approve this plan? the plan' },
    });
    const suspended = paused.events.find((e) => e.event_type === 'node_suspended');
    expect(suspended?.data.execution).toMatchObject({ path: 'review', node: { id: 'review', kind: 'gate' }, lifecycle: { status: 'suspended', point: 'approval' } });
    expect(paused.events.at(-1)?.event_type).toBe('workflow_paused');

    const bad = await post(runId, 'approve', 'not json');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'Request body is not valid JSON — send {"comment": "..."} or no body' });

    const ok = await post(runId, 'approve', JSON.stringify({ comment: 'ok' }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ success: true });

    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(done.run.status).toBe('completed');
    const completed = done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'review');
    expect(completed?.data).toMatchObject({ node_output: 'ok', approval_decision: 'approve' });
    expect(completed?.data.execution).toMatchObject({ lifecycle: { status: 'completed' }, diagnostics: { approvalDecision: 'approve' } });
    // The gate's attempt is the one that was suspended: one invocation, one attempt.
    expect(completed?.data.execution.attempt.id).toBe(suspended?.data.execution.attempt.id);
    expect(done.events.find((e) => e.event_type === 'approval_received')?.data).toMatchObject({ decision: 'approved', comment: 'ok' });
    expect(done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'work')?.data.node_output).toBe('approved with: ok');
    // paused → running in one step: no failure was ever announced.
    const runEvents = done.events.filter((e) => e.step_name === null).map((e) => e.event_type);
    expect(runEvents).toEqual(['workflow_queued', 'workflow_started', 'workflow_paused', 'workflow_resumed', 'workflow_completed']);
  });

  it('§12 row 22: rejecting a plain gate with {} cancels the run and records the default reason', async () => {
    await writeHomeWorkflow(home, 'gated-plain', gated('gated-plain', false));
    const { runId } = await startRun(server.url, 'gated-plain');
    await waitForStatus(runId, ['paused']);
    const res = await post(runId, 'reject', '{}');
    expect(res.status).toBe(200);
    const done = await waitForStatus(runId, ['cancelled', 'completed', 'failed']);
    expect(done.run.status).toBe('cancelled');
    expect(done.events.find((e) => e.event_type === 'approval_received')?.data).toMatchObject({ decision: 'rejected', reason: 'Rejected' });
    expect(done.events.some((e) => e.step_name === 'work')).toBe(false);
    expect(done.events.at(-1)).toMatchObject({ event_type: 'workflow_cancelled', data: { reason: 'Rejected' } });
  });

  it('a second approve of a resolved gate is a 400 that says so; approve and reject name the status they do not apply to', async () => {
    await writeHomeWorkflow(home, 'gated-slow', gated('gated-slow', false).replace("bash: 'printf", "bash: 'sleep 1; printf"));
    const { runId } = await startRun(server.url, 'gated-slow');
    await waitForStatus(runId, ['paused']);
    const [first, second] = await Promise.all([post(runId, 'approve'), post(runId, 'approve')]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 400]);
    const refused = (await (first.status === 400 ? first : second).json()) as { error: string };
    expect(refused.error).toMatch(/^Workflow run was already approved — resume in progress$|^Cannot approve workflow in 'running' status$/);

    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(done.run.status).toBe('completed');
    const again = await post(runId, 'approve', JSON.stringify({ comment: 'again' }));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "Cannot approve workflow in 'completed' status" });
    const reject = await post(runId, 'reject');
    expect(await reject.json()).toMatchObject({ error: "Cannot reject workflow in 'completed' status" });
    const missing = await post('does-not-exist', 'approve');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'Workflow run not found' });
    // Only one gate answer was ever recorded.
    expect(done.events.filter((e) => e.event_type === 'approval_received')).toHaveLength(1);
  });

  it('an approved gate continues the same pass; a later resume replays the plan and the gate and runs only what failed', async () => {
    const control = `${home.home}/work-may-pass`;
    await writeHomeWorkflow(home, 'gated-flaky', `name: gated-flaky
description: plan, a gate, then work that fails until a control file exists
nodes:
  - id: plan
    bash: echo the plan
  - id: review
    depends_on: [plan]
    approval:
      message: "Approve?"
  - id: work
    depends_on: [review]
    bash: 'test -e "${control}" && echo worked'
`);
    const { runId } = await startRun(server.url, 'gated-flaky');
    expect((await waitForStatus(runId, ['paused', 'failed'])).run.status).toBe('paused');
    expect((await post(runId, 'approve', '{}')).status).toBe(200);
    const failed = await waitForStatus(runId, ['failed', 'completed']);
    expect(failed.run.status).toBe('failed');
    // The answer continued the run: nothing was replayed, plan ran once.
    expect(failed.events.filter((e) => e.event_type === 'node_skipped_prior_success')).toEqual([]);
    expect(failed.events.filter((e) => e.event_type === 'node_started').map((e) => e.step_name)).toEqual(['plan', 'review', 'work']);

    await writeFile(control, '');
    expect((await post(runId, 'resume')).status).toBe(200);
    const done = await waitForStatus(runId, ['completed', 'failed', 'paused']);
    expect(done.run.status).toBe('completed');
    const afterResume = done.events.slice(done.events.findLastIndex((e) => e.event_type === 'workflow_resumed'));
    expect(afterResume.filter((e) => e.event_type === 'node_skipped_prior_success').map((e) => e.step_name).sort()).toEqual(['plan', 'review']);
    expect(afterResume.filter((e) => e.event_type === 'node_started').map((e) => e.step_name)).toEqual(['work']);
  });
});

// Killing the supervisor leaves a server in take-over: the test gets a server of its own.
describe('on a server of its own', () => {
  beforeEach(openServer);
  afterEach(() => home.close());

  it('a paused run refuses delete, survives a kill -9 of the supervisor, and completes when approved after it', async () => {
    await writeHomeWorkflow(home, 'gated', gated('gated', true));
    const { runId } = await startRun(server.url, 'gated');
    expect((await waitForStatus(runId, ['paused', 'failed'])).run.status).toBe('paused');
    const refused = await fetch(`${server.url}/api/workflows/runs/${runId}`, { method: 'DELETE' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe("Cannot delete workflow in 'paused' status — cancel it first");

    // The supervisor dies while the run waits for its answer; cairn serve starts a new one.
    const first = await server.pid('supervisor');
    process.kill(first, 'SIGKILL');
    await waitFor(async () => {
      const next = await server.pid('supervisor').catch(() => undefined);
      return next !== undefined && next !== first ? next : undefined;
    }, { what: 'cairn serve to start a new supervisor', timeoutMs: 30_000 });
    expect((await getRun(server.url, runId)).run.status).toBe('paused');

    expect((await post(runId, 'approve', '{"comment":"after the crash"}')).status).toBe(200);
    const done = await waitForStatus(runId, ['completed', 'failed', 'cancelled']);
    expect(done.run.status).toBe('completed');
    const work = done.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'work');
    expect(work?.data.node_output).toBe('approved with: after the crash');
  });
});
