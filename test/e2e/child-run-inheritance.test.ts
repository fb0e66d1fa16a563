import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * The built server and a real supervisor: a child run (a `workflow:` node) runs as its parent's
 * request asked: for the same user, with the same `config.env` (sealed again for the child, never
 * shown), and under the parent's USD budget.
 */

let home: TempHome;
let server: RunningServer;
beforeEach(async () => {
  home = await makeTempHome();
  server = await startServer(home);
});
afterEach(async () => {
  await home.close();
});

async function runToEnd(name: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/api/workflows/${name}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const { runId } = (await res.json()) as { runId: string };
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled', 'paused'].includes(detail.run.status) ? detail : undefined;
  }, { what: `run ${runId} of ${name} to stop` });
}

function childIdOf(detail: { events: Record<string, any>[] }, nodeId: string): string {
  const record = detail.events.find((e) => e.event_type === 'node_completed' && e.step_name === nodeId);
  return record?.data.execution.diagnostics.childRunId as string;
}

it("a child run gets its parent's user and config.env, sealed again and never shown", async () => {
  await writeHomeWorkflow(home, 'env-child', 'name: env-child\ndescription: prints its variable\nreturns: show\nnodes:\n  - id: show\n    bash: printf %s "$THE_VAR"\n');
  await writeHomeWorkflow(home, 'env-parent', 'name: env-parent\ndescription: starts the child\nnodes:\n  - id: sub\n    workflow: env-child\n');
  const secret = `child-secret-${randomBytes(8).toString('hex')}`;

  const parent = await runToEnd('env-parent', { message: 'go', config: { env: { THE_VAR: secret } } }, { 'x-service-user': 'ann' });
  expect(parent.run.status).toBe('completed');
  const sub = parent.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'sub');
  expect(sub?.data.node_output).toBe(secret);

  const child = await getRun(server.url, childIdOf(parent, 'sub'));
  expect(child.run).toMatchObject({ status: 'completed', user_id: 'ann', metadata: { overrides: { env_names: ['THE_VAR'] } } });
  expect(child.run.metadata.sealed_env).toBeUndefined();
  // Shown nowhere but in the output the child itself printed.
  const childEvents = JSON.stringify(child.events.filter((e) => e.step_name !== 'show'));
  expect(childEvents).not.toContain(secret);
});

it("a child run is held to its parent's USD budget, and to its own as well", async () => {
  await writeHomeWorkflow(home, 'free-child', 'name: free-child\ndescription: no budget of its own\nnodes:\n  - id: one\n    bash: echo one\n');
  await writeHomeWorkflow(home, 'thrifty-child', 'name: thrifty-child\ndescription: a budget of its own\nbudget:\n  usd: 0.25\nnodes:\n  - id: one\n    bash: echo one\n');
  await writeHomeWorkflow(home, 'budget-parent', 'name: budget-parent\ndescription: two children\nbudget:\n  usd: 2\nnodes:\n  - id: free\n    workflow: free-child\n  - id: thrifty\n    workflow: thrifty-child\n');
  await writeHomeWorkflow(home, 'no-budget-parent', 'name: no-budget-parent\ndescription: no budget\nnodes:\n  - id: free\n    workflow: free-child\n');

  const parent = await runToEnd('budget-parent', { message: 'go' });
  expect(parent.run.status).toBe('completed');
  const free = (await getRun(server.url, childIdOf(parent, 'free'))).run.metadata;
  expect([free.budget, free.budget_scope]).toEqual([undefined, [parent.run.id]]);
  const thrifty = (await getRun(server.url, childIdOf(parent, 'thrifty'))).run.metadata;
  expect([thrifty.budget, thrifty.budget_scope]).toEqual([{ usd: 0.25 }, [parent.run.id]]);

  // A request's budget is the parent's budget, and so covers the children.
  const asked = await runToEnd('no-budget-parent', { message: 'go', budget: { usd: 0.5 } });
  expect(asked.run.metadata.budget).toEqual({ usd: 0.5 });
  expect((await getRun(server.url, childIdOf(asked, 'free'))).run.metadata.budget_scope).toEqual([asked.run.id]);
  // No budget above: the child has none to count toward.
  const unbudgeted = await runToEnd('no-budget-parent', { message: 'go' });
  expect((await getRun(server.url, childIdOf(unbudgeted, 'free'))).run.metadata.budget_scope).toBeUndefined();
});
