import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AnthropicServer } from '../helpers/anthropic-server.js';
import { startPaidClaude, writePaidChain, writePaidFanOut } from '../helpers/paid-claude.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/**
 * A run's USD budget through the real supervisor and the real Claude Code CLI (the adapter that
 * reports cost) against a local Messages API server: the run pauses before the attempt that would
 * start over budget, nothing is killed, and a resume with a raised budget completes it.
 */

let home: TempHome;
let server: AnthropicServer;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/** The paid Messages API server (kept as `server`, whose requests the tests count) and Cairn using the real CLI against it. */
async function startPaidServer() {
  const started = await startPaidClaude(home);
  server = started.messages;
  return started.cairn;
}

it('pauses a run whose spend reached its budget before the next AI attempt, and a resume with a raised budget completes it', async () => {
  const server_ = await startPaidServer();
  await writePaidChain(home, 'budgeted', 0.005);
  const { runId } = await startRun(server_.url, 'budgeted');
  const statusIn = (statuses: string[]) =>
    waitFor(async () => {
      const detail = await getRun(server_.url, runId);
      return statuses.includes(detail.run.status) ? detail : undefined;
    }, { what: `the run to be ${statuses.join('|')}`, timeoutMs: 60_000 });
  const paused = await statusIn(['paused', 'failed', 'completed']);
  const failures = paused.events.filter((e) => e.event_type === 'node_failed').map((e) => `${e.step_name}: ${e.data.error}`);
  expect(failures).toEqual([]);
  expect(paused.run.status).toBe('paused');
  expect(paused.run.metadata.totals.total_cost_usd).toBeGreaterThanOrEqual(0.005);
  const ran = paused.events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name);
  expect(ran).not.toContain('three');
  expect(paused.events.find((e) => e.event_type === 'workflow_paused')?.data).toMatchObject({ type: 'budget' });
  expect(server.requests.length).toBe(ran.length);

  const bad = await fetch(`${server_.url}/api/workflows/runs/${runId}/resume`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ budgetUsd: -1 }),
  });
  expect(bad.status).toBe(400);
  const resumed = await fetch(`${server_.url}/api/workflows/runs/${runId}/resume`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ budgetUsd: 1 }),
  });
  expect(resumed.status).toBe(200);
  const done = await statusIn(['completed', 'failed']);
  expect(done.run.status).toBe('completed');
  expect(done.events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name)).toContain('three');
});

/** Waits for the run to reach one of `statuses`, and returns its detail. */
function statusOf(url: string, runId: string, statuses: string[]) {
  return waitFor(async () => {
    const detail = await getRun(url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} to be ${statuses.join('|')}`, timeoutMs: 60_000 });
}

function resume(url: string, runId: string, body?: object) {
  return fetch(`${url}/api/workflows/runs/${runId}/resume`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

// Each answer of the paid server costs $0.0045 (1000 in, 100 out on claude-sonnet-4-5).

it('holds a child run to its parent\'s budget, counting both, and a resume of the parent with more budget finishes the child', async () => {
  const server_ = await startPaidServer();
  await writeHomeWorkflow(home, 'two-paid-steps', `name: two-paid-steps
description: no budget of its own
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: a
    prompt: "child step a"
  - id: b
    depends_on: [a]
    prompt: "child step b"
`);
  await writeHomeWorkflow(home, 'spends-then-calls', `name: spends-then-calls
description: a paid step, then a child run with two
provider: claude
model: claude-sonnet-4-5
budget: { usd: 0.005 }
nodes:
  - id: paid
    prompt: "step one"
  - id: sub
    depends_on: [paid]
    workflow: two-paid-steps
`);
  const { runId } = await startRun(server_.url, 'spends-then-calls');
  const paused = await statusOf(server_.url, runId, ['paused', 'failed', 'completed']);
  expect(paused.run.status).toBe('paused');
  // $0.0045 of the parent's own, then the child's first step: $0.009 in all, and no third call.
  expect(server.requests.length).toBe(2);
  expect(paused.run.metadata.total_cost_usd).toBeCloseTo(0.0045, 9);
  expect(paused.run.metadata.descendants_cost_usd).toBeCloseTo(0.0045, 9);
  expect(paused.run.metadata.budget_pause).toMatchObject({ budget_run_id: runId, reason: 'budget exceeded: spent $0.01 of $0.01' });
  const sub = paused.events.filter((e) => e.step_name === 'sub').at(-1)!;
  expect(sub.data).toMatchObject({ interrupted: true });
  const childId = /its child run (\S+) paused: budget exceeded/.exec(String(sub.data.execution.lifecycle.error))![1]!;
  const child = await getRun(server_.url, childId);
  expect(child.run.status).toBe('paused');
  expect(child.run.metadata.budget_scope).toEqual([runId]);
  expect(child.run.metadata.budget_pause.reason).toBe(`budget exceeded: spent $0.01 of $0.01 (the budget of run ${runId})`);

  // The budget is the parent's: raising it through the child is refused, naming the parent.
  const refused = await resume(server_.url, childId, { budgetUsd: 1 });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toContain(`resume run ${runId} with budgetUsd`);

  expect((await resume(server_.url, runId, { budgetUsd: 1 })).status).toBe(200);
  const done = await statusOf(server_.url, runId, ['completed', 'failed']);
  expect(done.run.status).toBe('completed');
  expect((await getRun(server_.url, childId)).run.status).toBe('completed');
  expect(server.requests.length).toBe(3);
  expect(done.run.metadata.descendants_cost_usd).toBeCloseTo(0.009, 9);
});

it('shares one budget among the children of a fan-out: the tree stops at the budget, and a resume of the parent goes on where it stopped', async () => {
  const server_ = await startPaidServer();
  await writePaidFanOut(home, { items: ['a', 'b', 'c', 'd'], budgetUsd: 0.01 });
  const { runId } = await startRun(server_.url, 'paid-fan-out');
  const paused = await statusOf(server_.url, runId, ['paused', 'failed', 'completed']);
  const failures = paused.events.filter((e) => e.event_type === 'node_failed' && e.data.interrupted !== true);
  expect(failures).toEqual([]);
  expect(paused.run.status).toBe('paused');
  // Three children fit under $0.01 ($0.0045 each, checked before each call); the fourth pauses
  // before it calls. Each child used to get the whole budget: all four ran.
  expect(server.requests.length).toBe(3);
  expect(paused.run.metadata.descendants_cost_usd).toBeCloseTo(0.0135, 9);
  expect(paused.events.find((e) => e.event_type === 'workflow_paused')?.data).toMatchObject({ type: 'budget', budgetUsd: 0.01 });

  expect((await resume(server_.url, runId, { budgetUsd: 0.05 })).status).toBe(200);
  const done = await statusOf(server_.url, runId, ['completed', 'failed']);
  expect(done.run.status).toBe('completed');
  expect(server.requests.length).toBe(4);
  const each = done.events.filter((e) => e.event_type === 'node_completed' && e.step_name === 'each').at(-1)!;
  expect(JSON.parse(each.data.execution.output.text as string)).toHaveLength(4);
});

it('checks the budget before each iteration of a loop whose body is an AI node: the run pauses between iterations and a resume goes on from the next one', async () => {
  const cairn = await startPaidServer();
  // The check counts the iterations in the run's folder; it says done at the fourth.
  await writeHomeWorkflow(home, 'paid-loop', `name: paid-loop
description: a paid call per iteration under a budget
provider: claude
model: claude-sonnet-4-5
budget: { usd: 0.01 }
nodes:
  - id: refine
    loop:
      prompt: "refine it"
      until: NEVER_SAID
      until_bash: 'n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > count; [ $n -ge 4 ]'
      max_iterations: 6
`);
  const { runId } = await startRun(cairn.url, 'paid-loop');
  const paused = await statusOf(cairn.url, runId, ['paused', 'failed', 'completed']);
  expect(paused.run.status).toBe('paused');
  // $0.0045 an answer: 0.009 spent before the third iteration (under 0.01), 0.0135 before the fourth.
  expect(server.requests).toHaveLength(3);
  expect(paused.run.metadata.budget_pause).toMatchObject({ budget_usd: 0.01, budget_run_id: runId });
  const interrupted = paused.events.filter((e) => e.step_name === 'refine' && e.event_type === 'node_failed');
  expect(interrupted.map((e) => e.data.error)).toEqual([expect.stringMatching(/^Node 'refine': paused before iteration 4: budget exceeded/)]);
  expect(interrupted[0]!.data.interrupted).toBe(true);

  expect((await resume(cairn.url, runId, { budgetUsd: 1 })).status).toBe(200);
  const done = await statusOf(cairn.url, runId, ['completed', 'failed']);
  expect(done.run.status).toBe('completed');
  // Iterations 1-3 are not run again: one more call, the fourth iteration's.
  expect(server.requests).toHaveLength(4);
  expect(done.events.filter((e) => e.event_type === 'loop_iteration_completed').map((e) => e.data.iteration)).toEqual([1, 2, 3, 4]);
});
