import { afterEach, beforeEach, expect, it } from 'vitest';
import { PAID_ANSWER_USD, paidAnswer, startClaudeCli, writePaidChain } from '../helpers/paid-claude.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * kill -9 of the supervisor between a budget being reached and the run's pause: one paid attempt
 * ended and took the run over budget while another was still streaming (a budget kills nothing,
 * the run pauses once it ended). The pause must not be lost to the crash: the next supervisor
 * must not start a paid attempt over budget.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});



it('a supervisor killed -9 while a budget-reached run waits for its last running paid attempt: the next one pauses it on the budget and starts no paid call', async () => {
  // The first answer comes at once; the second streams forever (until the test ends).
  const { messages, cairn } = await startClaudeCli(home, (i) => (i === 0 ? paidAnswer : { ...paidAnswer, blocks: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], stallAfterFirst: true }));
  await writeHomeWorkflow(home, 'two-paid', `name: two-paid
description: two paid steps at once under a budget one answer exceeds
provider: claude
model: claude-sonnet-4-5
budget: { usd: 0.004 }
nodes:
  - id: one
    prompt: "step one"
  - id: two
    prompt: "step two"
  - id: three
    depends_on: [one, two]
    prompt: "step three"
`);
  const { runId } = await startRun(cairn.url, 'two-paid');
  // One paid attempt ended (the run is over budget), the other is still streaming.
  await waitFor(async () => {
    const { run } = await getRun(cairn.url, runId);
    return (run.metadata.totals?.total_cost_usd ?? 0) >= 0.004 && messages.requests.length === 2;
  }, { what: 'the budget to be reached while the second paid attempt streams', timeoutMs: 60_000 });
  expect((await getRun(cairn.url, runId)).run.status).toBe('running');
  const supervisorPid = await cairn.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');

  const { run, events } = await waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return ['paused', 'completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: 'the run to pause after the crash', timeoutMs: 60_000 });
  expect(await cairn.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('paused');
  expect(run.metadata.budget_pause).toMatchObject({ budget_usd: 0.004, budget_run_id: runId });
  expect(events.filter((e) => e.event_type === 'workflow_paused').at(-1)?.data).toMatchObject({ type: 'budget' });
  // No paid call started over budget after the crash.
  expect(messages.requests).toHaveLength(2);
  expect(run.metadata.totals.total_cost_usd).toBeCloseTo(PAID_ANSWER_USD, 9);
  expect(events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name)).toHaveLength(1);
}, 120_000);

it('a budget-paused run resumed with a raised budget, whose supervisor is killed -9 mid-stream in the resumed pass: the next one keeps the raised budget and the pass, and completes the run', async () => {
  // Answers 0 and 1 come at once; answer 2 (the first of the resumed pass) streams forever; later ones come at once.
  const { messages, cairn } = await startClaudeCli(home, (i) => (i === 2 ? { ...paidAnswer, blocks: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], stallAfterFirst: true } : paidAnswer));
  await writePaidChain(home, 'three-paid', 0.005);
  const { runId } = await startRun(cairn.url, 'three-paid');
  const statusIn = (statuses: string[]) => waitFor(async () => {
    const detail = await getRun(cairn.url, runId);
    return statuses.includes(detail.run.status) ? detail : undefined;
  }, { what: `the run to be ${statuses.join('|')}`, timeoutMs: 60_000 });
  expect((await statusIn(['paused', 'failed', 'completed'])).run.status).toBe('paused');
  expect(messages.requests).toHaveLength(2);

  const resumed = await fetch(`${cairn.url}/api/workflows/runs/${runId}/resume`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ budgetUsd: 1 }),
  });
  expect(resumed.status).toBe(200);
  await waitFor(() => messages.requests.length >= 3, { what: 'the resumed pass to call the provider', timeoutMs: 30_000 });
  await new Promise((r) => setTimeout(r, 300));
  const supervisorPid = await cairn.pid('supervisor');
  process.kill(supervisorPid, 'SIGKILL');

  const { run, events } = await statusIn(['paused', 'completed', 'failed', 'cancelled']);
  expect(await cairn.pid('supervisor')).not.toBe(supervisorPid);
  expect(run.status).toBe('completed');
  expect(run.metadata.budget).toEqual({ usd: 1 });
  expect(messages.requests).toHaveLength(4);
  expect(messages.maxConcurrent()).toBe(1);
  // one and two ran once each, before the pause; three ran to completion once.
  const completed = events.filter((e) => e.event_type === 'node_completed').map((e) => e.step_name);
  expect(completed).toEqual(['one', 'two', 'three']);
  expect(events.filter((e) => e.event_type === 'workflow_paused')).toHaveLength(1);
  expect(run.metadata.totals.total_cost_usd).toBeCloseTo(3 * PAID_ANSWER_USD, 9);
}, 120_000);
